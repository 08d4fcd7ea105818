// Breaks foundation-below-features.
import { crmValue } from '../crm';
export const ordersUsesCrm = crmValue;
