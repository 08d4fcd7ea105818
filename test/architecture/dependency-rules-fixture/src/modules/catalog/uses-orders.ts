// Breaks foundation-order-catalog.
import { ordersValue } from '../orders';
export const catalogUsesOrders = ordersValue;
