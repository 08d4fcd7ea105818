import type { AppConfig } from '../../../config/index';
import { CloudflareCustomHostnames } from './cloudflare';
import { domainsConfigFrom, type DomainsConfig, type DomainsEnv } from '../../../config/domains';
import { DevelopmentCustomHostnames, DevelopmentEmailDomains, isDevelopmentProviderId } from './development';
import { ResendEmailDomains } from './resend';
import { DomainProviderError, type CustomHostnameProvider, type EmailDomainProvider } from './types';

export * from './types';
export { CloudflareCustomHostnames } from './cloudflare';
export { ResendEmailDomains, recordsFromResend } from './resend';
export {
  DevelopmentCustomHostnames, DevelopmentEmailDomains, DEVELOPMENT_DNS_PROPAGATION_MS, developmentEmailRecords, developmentProviderId,
  isDevelopmentProviderId,
} from './development';
export {
  CLOUDFLARE_API_BASE_URL, DEVELOPMENT_CNAME_TARGET, domainsConfigFrom, RESEND_API_BASE_URL,
  type CloudflareConfig, type DomainsConfig, type DomainsEnv, type ResendDomainsConfig,
} from '../../../config/domains';
export { hostnameProblem, isUnder, MAX_HOSTNAME_LENGTH, normalizeHostname, platformDomainOf, RESERVED_DOMAINS, RESERVED_TOP_LEVEL_NAMES } from './hostname';

/** What picks an implementation: the deployment and whether the caller is a sandbox clinic. */
export interface DomainProviderChoice {
  config: Pick<AppConfig, 'environment'>;
  /** Sandbox clinics never reach a real provider. */
  sandbox: boolean;
  /** The provider id of the record the call is about, when there is one (dev_...: made by the development implementation). */
  recordId?: string | null;
}

const unconfigured = (what: string, vars: string) =>
  new DomainProviderError('none', 'unavailable', `${what} are not configured on this deployment (${vars}); nothing was changed`);

/**
 * The custom-hostname implementation for a call: the development one for a record it made (dev_...),
 * for a sandbox clinic, and outside production without Cloudflare; Cloudflare for SaaS when
 * CLOUDFLARE_API_TOKEN, CLOUDFLARE_ZONE_ID and CUSTOM_DOMAIN_CNAME_TARGET are set. Production without
 * them answers 'unavailable' (the operation says so with a 503) rather than pretending.
 */
export function customHostnamesFor(env: DomainsEnv | undefined, choice: DomainProviderChoice, config: DomainsConfig = domainsConfigFrom(env)): CustomHostnameProvider {
  const development = () => new DevelopmentCustomHostnames(config.cnameTarget);
  if (choice.sandbox || isDevelopmentProviderId(choice.recordId)) return development();
  if (config.cloudflare) return new CloudflareCustomHostnames({ ...config.cloudflare, cnameTarget: config.cnameTarget });
  if (choice.config.environment === 'production') {
    throw unconfigured('Custom domains', 'CLOUDFLARE_API_TOKEN, CLOUDFLARE_ZONE_ID, CUSTOM_DOMAIN_CNAME_TARGET');
  }
  return development();
}

/** The email-domain implementation: as above, with Resend when RESEND_API_KEY is set. */
export function emailDomainsFor(env: DomainsEnv | undefined, choice: DomainProviderChoice, config: DomainsConfig = domainsConfigFrom(env)): EmailDomainProvider {
  if (choice.sandbox || isDevelopmentProviderId(choice.recordId)) return new DevelopmentEmailDomains();
  if (config.resend) return new ResendEmailDomains(config.resend);
  if (choice.config.environment === 'production') throw unconfigured('Email domains', 'RESEND_API_KEY');
  return new DevelopmentEmailDomains();
}
