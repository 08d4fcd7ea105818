// Breaks src-clients-only-webhook-signature.
import { clientValue } from '../../../clients/typescript/src/index';
export const crmUsesClient = clientValue;
