// What the organization services need from a request: the database, the clock, the deployment's
// configuration, the Worker env (the domain and SMS adapters read their variables from it; src/config/index.ts
// does not carry them) and whether the caller is a sandbox clinic (which never reaches a real provider).
import type { Context } from 'hono';
import type { AppConfig } from '../../../config/index';
import type { AppEnv } from '../../../platform/context';
import type { Database } from '../../../platform/db/client';
import {
  customHostnamesFor, domainsConfigFrom, emailDomainsFor,
  type CustomHostnameProvider, type DomainsConfig, type DomainsEnv, type EmailDomainProvider,
} from '../../../platform/providers/domains';
import { smsNumbersFor, type SmsEnv, type SmsNumberProvider } from '../../../platform/providers/sms';
import type { ObjectStorage } from '../../../platform/providers/storage/types';
import { viaDomainProvider } from './errors';

export type OrganizationEnv = DomainsEnv & SmsEnv;

export interface OrganizationDeps {
  db: Database;
  now: Date;
  config: Pick<AppConfig, 'environment' | 'webhookSecretKey'>;
  env: OrganizationEnv | undefined;
  sandbox: boolean;
}

export function depsOf(c: Context<AppEnv>): OrganizationDeps {
  const { db, now, config } = c.get('services');
  return { db, now: now(), config, env: c.env as OrganizationEnv | undefined, sandbox: c.get('apiKey').isSandbox };
}

export function uploadDepsOf(c: Context<AppEnv>): { db: Database; storage: ObjectStorage; now(): Date } {
  const { db, storage, now } = c.get('services');
  return { db, storage, now };
}

/** The deployment's domain settings (a ConfigError when its variables are half set). */
export const domainsConfigOf = (deps: OrganizationDeps): DomainsConfig => domainsConfigFrom(deps.env);

export const customHostnamesOf = (deps: OrganizationDeps, recordId?: string | null): Promise<CustomHostnameProvider> =>
  viaDomainProvider('hostname', async () => customHostnamesFor(deps.env, { config: deps.config, sandbox: deps.sandbox, recordId }, domainsConfigOf(deps)));

export const emailDomainsOf = (deps: OrganizationDeps, recordId?: string | null): Promise<EmailDomainProvider> =>
  viaDomainProvider('domain', async () => emailDomainsFor(deps.env, { config: deps.config, sandbox: deps.sandbox, recordId }, domainsConfigOf(deps)));

export const smsNumbersOf = (deps: OrganizationDeps): SmsNumberProvider => smsNumbersFor(deps.env, { config: deps.config, sandbox: deps.sandbox });
