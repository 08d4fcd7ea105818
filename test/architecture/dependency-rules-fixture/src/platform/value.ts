export const platformValue = 1;
