export { CloudflareCustomHostnames } from './cloudflare';
export {
  DEVELOPMENT_DNS_PROPAGATION_MS,
  DevelopmentCustomHostnames,
  DevelopmentEmailDomains,
  developmentEmailRecords,
  developmentProviderId,
  isDevelopmentProviderId,
} from './development';
export {
  hostnameProblem,
  isUnder,
  MAX_HOSTNAME_LENGTH,
  normalizeHostname,
  platformDomainOf,
  RESERVED_DOMAINS,
  RESERVED_TOP_LEVEL_NAMES,
} from './hostname';
export { ResendEmailDomains, recordsFromResend } from './resend';
export * from './types';
