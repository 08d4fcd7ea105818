export const ordersInternal = 1;
