// Breaks scripts-through-index.
import { ordersInternal } from '../src/modules/orders/internal';
export const scriptUsesInternal = ordersInternal;
