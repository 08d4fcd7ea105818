// What the organization and clinic services take from a request: the database, the time of the request
// (one instant for the whole operation), the deployment's configuration, the domain and SMS providers,
// and whether the caller is a sandbox clinic (which never reaches a real provider).
import type { Context } from 'hono';
import type { AppConfig } from '../../config';
import type { AppEnv } from '../../platform/context';
import type { Database } from '../../platform/db/client';
import type { Providers } from '../../platform/providers';
import type { CustomHostnameProvider, EmailDomainProvider } from '../../platform/providers/domains';
import type { SmsNumberProvider } from '../../platform/providers/sms';

export interface OrganizationDeps {
  db: Database;
  now: Date;
  config: Pick<AppConfig, 'environment' | 'secretKeys' | 'domains'>;
  providers: Pick<Providers, 'customHostnames' | 'emailDomains' | 'smsNumbers'>;
  sandbox: boolean;
}

export function depsOf(c: Context<AppEnv>): OrganizationDeps {
  const services = c.get('services');
  return { db: services.db, now: services.now(), config: services.config, providers: services, sandbox: c.get('apiKey').isSandbox };
}

export const customHostnamesOf = (deps: OrganizationDeps, recordId?: string | null): CustomHostnameProvider =>
  deps.providers.customHostnames({ sandbox: deps.sandbox, recordId });

export const emailDomainsOf = (deps: OrganizationDeps, recordId?: string | null): EmailDomainProvider =>
  deps.providers.emailDomains({ sandbox: deps.sandbox, recordId });

export const smsNumbersOf = (deps: OrganizationDeps): SmsNumberProvider => deps.providers.smsNumbers({ sandbox: deps.sandbox });
