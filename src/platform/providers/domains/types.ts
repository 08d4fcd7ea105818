// The two external systems behind a clinic's own domains (docs/organization.md):
// - custom hostnames: the storefront served on the brand's hostname, with a certificate
//   (Cloudflare for SaaS custom hostnames in production);
// - email-domain authentication: the DNS records that let the platform send as the brand's domain
//   (Resend domains in production).
// Each has a development implementation whose state is the database rows themselves
// (custom_domains, email_domains) and which answers with the same states and errors.
import type { Queryable } from '../../db/client';

export const DNS_RECORD_PURPOSES = ['routing', 'ownership_verification', 'spf', 'dkim', 'return_path', 'dmarc', 'tracking'] as const;
export type DnsRecordPurpose = (typeof DNS_RECORD_PURPOSES)[number];
export const DNS_RECORD_TYPES = ['CNAME', 'TXT', 'MX'] as const;
export type DnsRecordType = (typeof DNS_RECORD_TYPES)[number];

/** A DNS record the brand must publish at its DNS host. `name` is the fully qualified name. */
export interface DnsRecord {
  type: DnsRecordType;
  name: string;
  value: string;
  purpose: DnsRecordPurpose;
  /** MX only. */
  priority: number | null;
}

/** What every call may use: the caller's database handle (the development implementations' state) and clock. */
export interface DomainProviderContext {
  db: Queryable;
  now: Date;
}

/** A custom hostname as recorded in custom_domains. */
export interface CustomHostnameRecord {
  providerHostnameId: string;
  hostname: string;
  /** When start created it (custom_domains.created_at). */
  startedAt: Date;
}

export interface CreatedCustomHostname {
  providerHostnameId: string;
  /** The value of the ownership TXT record (published at ownershipTxtName(hostname)). */
  verificationToken: string;
  /** Where the brand's CNAME must point. */
  cnameTarget: string;
}

/** The result of a check: verified, or what is still missing (human-readable, in order). */
export interface DomainCheck {
  verified: boolean;
  problems: string[];
}

export interface CustomHostnameProvider {
  /** development | cloudflare */
  readonly name: string;
  /** Registers the hostname and asks for a certificate. */
  create(input: { clinicId: string; hostname: string }, context: DomainProviderContext): Promise<CreatedCustomHostname>;
  /** Whether ownership (DNS) and the certificate are validated. */
  check(record: CustomHostnameRecord, context: DomainProviderContext): Promise<DomainCheck>;
  /** Attaches a verified hostname: confirms it still validates before the storefront serves it. */
  attach(record: CustomHostnameRecord, context: DomainProviderContext): Promise<DomainCheck>;
  /** Tears the hostname (and its certificate) down; a hostname the provider no longer knows counts as removed. */
  remove(record: CustomHostnameRecord, context: DomainProviderContext): Promise<void>;
}

/** The TXT record name that proves ownership of a custom hostname (Cloudflare's naming, used by both implementations). */
export const ownershipTxtName = (hostname: string) => `_cf-custom-hostname.${hostname}`;

/** An email domain as recorded in email_domains. */
export interface EmailDomainRecord {
  providerDomainId: string;
  domain: string;
  startedAt: Date;
}

export interface CreatedEmailDomain {
  providerDomainId: string;
  records: DnsRecord[];
}

export interface EmailDomainProvider {
  /** development | resend */
  readonly name: string;
  /** Registers the domain; answers the records to publish (SPF, DKIM, return path). */
  create(input: { clinicId: string; domain: string }, context: DomainProviderContext): Promise<CreatedEmailDomain>;
  /** Asks the provider to check the records now and answers the result. */
  verify(record: EmailDomainRecord, context: DomainProviderContext): Promise<DomainCheck>;
  /** Removes the domain; a domain the provider no longer knows counts as removed. */
  remove(record: EmailDomainRecord, context: DomainProviderContext): Promise<void>;
}
