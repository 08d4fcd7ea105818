export const accessValue = 1;
