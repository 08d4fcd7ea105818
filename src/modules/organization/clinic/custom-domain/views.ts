import type { customDomains } from '../../../../../drizzle/schema';
import { type DnsRecord, ownershipTxtName } from '../../../../platform/providers/domains';
import { isoOrNull } from '../../../../platform/values/dates';
import type { CustomDomainView } from './schemas';

export type CustomDomainRow = typeof customDomains.$inferSelect;

export function customDomainRecords(row: Pick<CustomDomainRow, 'hostname' | 'cnameTarget' | 'verificationToken'>): DnsRecord[] {
  return [
    { type: 'CNAME', name: row.hostname, value: row.cnameTarget, purpose: 'routing', priority: null },
    { type: 'TXT', name: ownershipTxtName(row.hostname), value: row.verificationToken, purpose: 'ownership_verification', priority: null },
  ];
}

export function toCustomDomain(row: CustomDomainRow): CustomDomainView {
  return {
    id: row.id,
    hostname: row.hostname,
    status: row.status,
    dnsRecords: customDomainRecords(row),
    verifiedAt: isoOrNull(row.verifiedAt),
    activatedAt: isoOrNull(row.activatedAt),
    removedAt: isoOrNull(row.removedAt),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
