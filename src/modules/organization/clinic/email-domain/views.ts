// Email-domain rows to API payloads, field by field (never a spread row; never a secret).
import type { emailDomains, organizations } from '../../../../../drizzle/schema';
import { DNS_RECORD_PURPOSES, DNS_RECORD_TYPES, type DnsRecord } from '../../../../platform/providers/domains';
import { isoOrNull } from '../../../../platform/values/dates';
import type { EMAIL_DOMAIN_VIEW_STATUSES, EmailDomainView, EmailSenderView } from './schemas';

export type EmailDomainRow = typeof emailDomains.$inferSelect;

/** The records stored in email_domains.dns_records, keeping only well-formed ones. */
export function storedDnsRecords(value: unknown): DnsRecord[] {
  if (!Array.isArray(value)) return [];
  const out: DnsRecord[] = [];
  for (const raw of value) {
    if (typeof raw !== 'object' || raw === null) continue;
    const r = raw as Record<string, unknown>;
    if (!(DNS_RECORD_TYPES as readonly unknown[]).includes(r.type) || !(DNS_RECORD_PURPOSES as readonly unknown[]).includes(r.purpose))
      continue;
    if (typeof r.name !== 'string' || typeof r.value !== 'string') continue;
    out.push({
      type: r.type as DnsRecord['type'],
      name: r.name,
      value: r.value,
      purpose: r.purpose as DnsRecord['purpose'],
      priority: typeof r.priority === 'number' ? r.priority : null,
    });
  }
  return out;
}

/** What email_domains.dns_records stores (plain objects). */
export const toStoredDnsRecords = (records: DnsRecord[]): Record<string, unknown>[] =>
  records.map((r) => ({ type: r.type, name: r.name, value: r.value, purpose: r.purpose, priority: r.priority }));

export function toEmailDomain(row: EmailDomainRow): EmailDomainView {
  return {
    id: row.id,
    domain: row.domain,
    status: row.status,
    dnsRecords: storedDnsRecords(row.dnsRecords),
    verifiedAt: isoOrNull(row.verifiedAt),
    removedAt: isoOrNull(row.removedAt),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

type SenderSettings = Pick<typeof organizations.$inferSelect, 'emailSenderName' | 'emailSenderLocalPart' | 'emailReplyTo'> | null;

type DomainStatus = (typeof EMAIL_DOMAIN_VIEW_STATUSES)[number];

export const emailDomainStatusOf = (row: Pick<EmailDomainRow, 'status'> | null): DomainStatus =>
  row && row.status !== 'removed' ? row.status : 'none';

/** The sender settings: the stored ones and what they amount to with the current email domain. */
export function toEmailSender(org: SenderSettings, domain: Pick<EmailDomainRow, 'domain' | 'status'> | null): EmailSenderView {
  const current = domain && domain.status !== 'removed' ? domain : null;
  const localPart = org?.emailSenderLocalPart ?? null;
  return {
    senderName: org?.emailSenderName ?? null,
    fromLocalPart: localPart,
    fromAddress: current?.status === 'verified' && localPart ? `${localPart}@${current.domain}` : null,
    replyTo: org?.emailReplyTo ?? null,
    domain: current?.domain ?? null,
    domainStatus: emailDomainStatusOf(current),
  };
}
