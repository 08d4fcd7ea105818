// Where each vendor's API is, defined once. Tests (and the rehearsal) point the adapters at local
// stand-ins through the *_API_BASE_URL variables that config/*.ts read.
export const RESEND_API_BASE_URL = 'https://api.resend.com';
export const TWILIO_API_BASE_URL = 'https://api.twilio.com';
export const CLOUDFLARE_API_BASE_URL = 'https://api.cloudflare.com/client/v4';
export const DEFAULT_QSTASH_URL = 'https://qstash.upstash.io';
/** DNS over HTTPS (JSON) of Cloudflare's 1.1.1.1: where webhook host names are resolved (docs/webhooks.md). */
export const CLOUDFLARE_DOH_URL = 'https://cloudflare-dns.com/dns-query';
