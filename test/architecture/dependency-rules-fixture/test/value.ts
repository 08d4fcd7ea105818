export const testValue = 1;
