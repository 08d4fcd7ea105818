export const catalogValue = 1;
