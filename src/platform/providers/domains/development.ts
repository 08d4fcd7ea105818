// The development implementations of both domain interfaces. Their state is the database rows the
// organization area keeps anyway (custom_domains, email_domains): a hostname or domain is "registered"
// while a row that is not removed names it, which is also how the real providers refuse duplicates.
// DNS: nobody publishes records for a development domain, so they count as published once
// DEVELOPMENT_DNS_PROPAGATION_MS have passed since start (on the request's clock); before that a
// check answers what is missing, exactly as a real check does while DNS propagates.
import { and, eq, ne } from 'drizzle-orm';
import { customDomains, emailDomains } from '../../../../drizzle/schema';
import { randomBytes, toBase64 } from '../../crypto/bytes';
import { ProviderError } from '../errors';
import {
  type CreatedCustomHostname,
  type CreatedEmailDomain,
  type CustomHostnameProvider,
  type CustomHostnameRecord,
  type DnsRecord,
  type DomainCheck,
  type DomainProviderContext,
  type EmailDomainProvider,
  type EmailDomainRecord,
  ownershipTxtName,
} from './types';

/** How long after start the development DNS records count as published. */
export const DEVELOPMENT_DNS_PROPAGATION_MS = 60_000;
/** Ids the development implementations make: dev_<32 hex>. A record with such an id never reaches a real provider. */
export const developmentProviderId = () => `dev_${crypto.randomUUID().replace(/-/g, '')}`;
export const isDevelopmentProviderId = (id: string | null | undefined) => typeof id === 'string' && id.startsWith('dev_');

const published = (startedAt: Date, now: Date) => now.getTime() - startedAt.getTime() >= DEVELOPMENT_DNS_PROPAGATION_MS;
const waitHint = (startedAt: Date, now: Date) => {
  const seconds = Math.max(1, Math.ceil((startedAt.getTime() + DEVELOPMENT_DNS_PROPAGATION_MS - now.getTime()) / 1000));
  return `development: the records count as published ${DEVELOPMENT_DNS_PROPAGATION_MS / 1000} seconds after start, ${seconds} s from now`;
};

export class DevelopmentCustomHostnames implements CustomHostnameProvider {
  readonly name = 'development';

  constructor(private readonly cnameTarget: string) {}

  async create(input: { clinicId: string; hostname: string }, { db }: DomainProviderContext): Promise<CreatedCustomHostname> {
    const [taken] = await db
      .select({ id: customDomains.id })
      .from(customDomains)
      .where(and(eq(customDomains.hostname, input.hostname), ne(customDomains.status, 'removed')))
      .limit(1);
    if (taken) throw new ProviderError('custom_hostnames', this.name, 'duplicate', `Duplicate custom hostname found: ${input.hostname}`);
    return { providerHostnameId: developmentProviderId(), verificationToken: crypto.randomUUID(), cnameTarget: this.cnameTarget };
  }

  async check(record: CustomHostnameRecord, { db, now }: DomainProviderContext): Promise<DomainCheck> {
    await this.known(record, db);
    if (published(record.startedAt, now)) return { verified: true, problems: [] };
    return {
      verified: false,
      problems: [
        `The CNAME record ${record.hostname} -> ${this.cnameTarget} is not visible yet (${waitHint(record.startedAt, now)})`,
        `The TXT record ${ownershipTxtName(record.hostname)} is not visible yet`,
        'The certificate is pending validation (it is issued once the CNAME resolves)',
      ],
    };
  }

  attach(record: CustomHostnameRecord, context: DomainProviderContext): Promise<DomainCheck> {
    return this.check(record, context);
  }

  async remove(): Promise<void> {
    // Nothing outside the row: the caller marks it removed, which frees the hostname.
  }

  private async known(record: CustomHostnameRecord, db: DomainProviderContext['db']) {
    const [row] = await db
      .select({ id: customDomains.id })
      .from(customDomains)
      .where(and(eq(customDomains.providerHostnameId, record.providerHostnameId), ne(customDomains.status, 'removed')))
      .limit(1);
    if (!row) throw new ProviderError('custom_hostnames', this.name, 'not_found', `Custom hostname ${record.hostname} not found`);
  }
}

/** The records Resend asks for (its SES-backed sending): return path MX and SPF on send.<domain>, DKIM on resend._domainkey. */
export function developmentEmailRecords(domain: string): DnsRecord[] {
  return [
    { type: 'MX', name: `send.${domain}`, value: 'feedback-smtp.us-east-1.amazonses.com', purpose: 'return_path', priority: 10 },
    { type: 'TXT', name: `send.${domain}`, value: 'v=spf1 include:amazonses.com ~all', purpose: 'spf', priority: null },
    { type: 'TXT', name: `resend._domainkey.${domain}`, value: `p=${toBase64(randomBytes(162))}`, purpose: 'dkim', priority: null },
  ];
}

export class DevelopmentEmailDomains implements EmailDomainProvider {
  readonly name = 'development';

  async create(input: { clinicId: string; domain: string }, { db }: DomainProviderContext): Promise<CreatedEmailDomain> {
    const [taken] = await db
      .select({ id: emailDomains.id })
      .from(emailDomains)
      .where(and(eq(emailDomains.domain, input.domain), ne(emailDomains.status, 'removed')))
      .limit(1);
    if (taken) throw new ProviderError('email_domains', this.name, 'duplicate', `The domain ${input.domain} has been registered already`);
    return { providerDomainId: developmentProviderId(), records: developmentEmailRecords(input.domain) };
  }

  async verify(record: EmailDomainRecord, { db, now }: DomainProviderContext): Promise<DomainCheck> {
    const [row] = await db
      .select({ id: emailDomains.id })
      .from(emailDomains)
      .where(and(eq(emailDomains.providerDomainId, record.providerDomainId), ne(emailDomains.status, 'removed')))
      .limit(1);
    if (!row) throw new ProviderError('email_domains', this.name, 'not_found', `Domain ${record.domain} not found`);
    if (published(record.startedAt, now)) return { verified: true, problems: [] };
    return {
      verified: false,
      problems: [
        `The SPF and return-path records on send.${record.domain} are not visible yet (${waitHint(record.startedAt, now)})`,
        `The DKIM record resend._domainkey.${record.domain} is not visible yet`,
      ],
    };
  }

  async remove(): Promise<void> {
    // Nothing outside the row.
  }
}
