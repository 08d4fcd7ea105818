// The messages the API sends with its error codes, one catalogue per code: the code that throws an
// error takes its message from here, and the OpenAPI examples (openapi-examples.ts) show the same
// text, so an example cannot drift from what a caller really receives. A message with values is a
// function of them. Codes whose messages are written at one throw site only, and never shown as an
// example, stay where they are thrown.
import { centsToAmount } from './money';

const dollars = (cents: number) => `$${centsToAmount(cents).toFixed(2)}`;

/** What a 503 DNS_RESOLVER_UNAVAILABLE says before the resolver's own detail. */
export const DNS_RESOLVER_UNAVAILABLE_MESSAGE =
  "The DNS resolver did not answer, so the URL's addresses could not be checked; nothing was changed, retry in 5 seconds";

export const ERROR_MESSAGES = {
  UNAUTHORIZED: {
    apiKey: 'Invalid or missing API key',
    bearerToken: 'Invalid or missing bearer token',
    signIn: 'Invalid email or password',
  },
  FORBIDDEN: { brandAdminsOnly: 'Only brand admins may manage API keys' },
  INVALID_JSON: 'Request body is not valid JSON',
  /** @hono/zod-openapi's own text (an HTTPException the error handler passes on). */
  UNSUPPORTED_MEDIA_TYPE: 'Unsupported Media Type',
  PAYLOAD_TOO_LARGE: {
    body: (maxBytes: number) => `Request body exceeds ${maxBytes} bytes`,
    image: (maxBytes: number) => `The image exceeds ${maxBytes} bytes (5 MiB)`,
    csv: (maxBytes: number) => `The CSV file exceeds ${maxBytes} bytes (5 MiB)`,
    content: (field: string, size: number, maxBytes: number) =>
      `${field} is ${size} bytes as JSON; at most ${maxBytes} bytes (256 KiB) are allowed`,
  },
  RATE_LIMIT_EXCEEDED: (retryAfterSeconds: number) => `Rate limit exceeded; retry in ${retryAfterSeconds} seconds`,
  KEY_KIND_NOT_ALLOWED: {
    publishable: 'Publishable keys may only call POST /api/v1/checkout/sessions',
    aiConnector: 'AI-connector keys may only call the read operations on their allowlist',
  },
  SANDBOX_NOT_ALLOWED: 'This operation is not available to sandbox keys',
  INSUFFICIENT_SCOPE: 'This operation requires an API key with the write scope',
  AFFILIATES_TIER_REQUIRED: 'Your plan does not include the Affiliates program',
  CRM_TIER_REQUIRED: 'Your plan does not include CRM Connect',
  SANDBOX_KEY_REQUIRED: (path: string) => `${path} needs a sandbox key (svc_test_); live keys belong to a clinic that is already live`,
  SERVICE_UNAVAILABLE: {
    database: (retryAfterSeconds: number) => `The database is unavailable; retry in ${retryAfterSeconds} seconds`,
    keyCaches: 'The change could not be announced to the key caches; nothing was changed, retry',
    oauthNotConfigured: (provider: string) => `OAuth with ${provider} is not configured on this deployment`,
    /** A deployment setting is missing or refused (ConfigError): all a deployed Worker says; the log has the rest. */
    notConfigured: (requestId: string) => `The service is not available (request ${requestId})`,
    /** The same on this machine (wrangler dev): what is wrong and how to fix it. */
    notConfiguredLocally: (problem: string) =>
      `The API is not configured: ${problem}. For plain \`wrangler dev\`: copy .dev.vars.example to .dev.vars, run \`npm run db:start\` (it starts, migrates and seeds a local PostgreSQL) and put the DATABASE_URL it prints in .dev.vars, then restart wrangler dev; or run \`npm run dev\`, which does all of it (README, "Plain wrangler dev")`,
  },
  IDEMPOTENCY_KEY_IN_USE: 'A request with this Idempotency-Key is still being processed; retry later',
  IDEMPOTENCY_KEY_REUSED: 'This Idempotency-Key was used with a different request (method, path or body); use a new key for a new request',
  DNS_RESOLVER_UNAVAILABLE: (detail: string) => `${DNS_RESOLVER_UNAVAILABLE_MESSAGE} (${detail})`,
  PAYMENT_PROCESSOR_ERROR: (detail: string) => `The payment processor refused the request (${detail})`,
  ALREADY_REFUNDED: 'This order has already been refunded',
  ORDER_NOT_PAID: 'This order has no successful payment to refund',
  REFUND_REQUEST_ALREADY_DECIDED: (status: string) => `This refund request was already ${status}`,
  PAYOUT_ACCOUNT_NOT_CONNECTED: 'The clinic has no connected payout account to withdraw to',
  ACTIVE_KEY_LIMIT_REACHED: (max: number) => `A brand may have at most ${max} active API keys; revoke one first`,
  WEBHOOK_ENDPOINT_LIMIT_REACHED: (max: number) => `A clinic may have at most ${max} webhook endpoints; delete one first`,
  SUBSCRIPTION_SYNC_REQUIRED: {
    outOfDate:
      'The subscription is expired or out of date and must be synced with the payment processor before its plan can change; contact platform support',
    noProcessorRecord: 'The subscription has no processor record; contact platform support',
  },
  SMS_NOT_CONFIGURED: {
    none: 'No SMS provider is configured; store the account with PUT /api/v1/organization/sms/twilio first',
    unreadable:
      'The stored SMS credentials cannot be read (the data key changed); store them again with PUT /api/v1/organization/sms/twilio',
  },
  SMS_NUMBER_NOT_ACTIVE: {
    none: 'The clinic has no active toll-free number to release',
    alreadyReleased: 'The toll-free number was already released by another request',
  },
  NAME_UNCHANGED: 'The new name is the current one; nothing to change',
  PLAN_INVITE_ONLY: {
    change: (plan: string) => `The plan ${plan} is by invitation only; ask platform support`,
    onboarding: (plan: string) => `The plan ${plan} is by invitation only`,
  },
  COPILOT_UNAVAILABLE:
    'The program copilot is not configured on this deployment (no AI provider); GET /api/v1/programs/copilot/suggestions still works',
  WINDDOWN_CONSENT_REQUIRED: (patients: number) =>
    `${patients} patient(s) are enrolled in this program; ending it needs their consent and is not available with an API key`,
  PLAN_LIMIT_REACHED: (limit: number, requested: number) => `Your plan allows ${limit} selected products; this selection has ${requested}`,
  /** `what`: "A price of $X is", "A selected product is priced", "N selected products are priced". */
  PLAN_PRICE_CAP_EXCEEDED: (what: string, maxPriceCents: number) =>
    `${what} above your plan's price cap of ${dollars(maxPriceCents)} per product`,
  CUSTOM_DOMAIN_EXISTS: (hostname: string, status: string) =>
    `The clinic already has the custom domain ${hostname} (${status}); remove it first with POST /api/v1/clinic/custom-domain/remove`,
  CUSTOM_DOMAIN_NOT_VERIFIED: (hostname: string) =>
    `The custom domain ${hostname} is not verified yet; publish its DNS records and call POST /api/v1/clinic/custom-domain/verify until it answers verified: true`,
  EMAIL_DOMAIN_EXISTS: (domain: string, status: string) =>
    `The clinic already has the email domain ${domain} (${status}); remove it first with POST /api/v1/clinic/email-domain/remove`,
} as const;
