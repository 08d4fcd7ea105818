export const clientValue = 1;
