// What every affiliate-program route shares (docs/affiliates.md): its OpenAPI tag, and the access
// rules: every route needs the clinic plan's Affiliates entitlement, 403 AFFILIATES_TIER_REQUIRED,
// checked after the key's scope.
import { errorBody, jsonContent } from '../../../platform/http/envelope';

export const tags = ['Affiliate program'];
export const read = { auth: 'key', scope: 'read', gate: 'affiliates' } as const;
export const write = { auth: 'key', scope: 'write', gate: 'affiliates' } as const;
export const illegal = (what: string) => jsonContent(errorBody, `ILLEGAL_TRANSITION: ${what}`);
