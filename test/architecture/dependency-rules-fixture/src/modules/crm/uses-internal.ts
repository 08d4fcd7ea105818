// Breaks area-through-index.
import { catalogInternal } from '../catalog/internal';
export const crmUsesInternal = catalogInternal;
