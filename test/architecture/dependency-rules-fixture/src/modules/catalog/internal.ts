export const catalogInternal = 1;
