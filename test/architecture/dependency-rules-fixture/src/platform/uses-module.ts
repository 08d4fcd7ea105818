// Breaks platform-not-modules.
import { ordersValue } from '../modules/orders';
export const platformUsesModule = ordersValue;
