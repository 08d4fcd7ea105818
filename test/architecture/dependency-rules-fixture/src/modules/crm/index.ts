export const crmValue = 1;
