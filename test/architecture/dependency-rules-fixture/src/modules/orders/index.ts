export const ordersValue = 1;
