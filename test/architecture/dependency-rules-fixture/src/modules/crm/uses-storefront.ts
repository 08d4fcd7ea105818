// Breaks features-not-sideways.
import { storefrontValue } from '../storefront';
export const crmUsesStorefront = storefrontValue;
