export const storefrontValue = 1;
