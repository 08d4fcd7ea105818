export * from './types';
export { CloudflareCustomHostnames } from './cloudflare';
export { ResendEmailDomains, recordsFromResend } from './resend';
export {
  DevelopmentCustomHostnames, DevelopmentEmailDomains, DEVELOPMENT_DNS_PROPAGATION_MS, developmentEmailRecords, developmentProviderId,
  isDevelopmentProviderId,
} from './development';
export { hostnameProblem, isUnder, MAX_HOSTNAME_LENGTH, normalizeHostname, platformDomainOf, RESERVED_DOMAINS, RESERVED_TOP_LEVEL_NAMES } from './hostname';
