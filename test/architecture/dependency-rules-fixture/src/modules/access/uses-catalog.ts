// Breaks foundation-order-access.
import { catalogValue } from '../catalog';
export const accessUsesCatalog = catalogValue;
