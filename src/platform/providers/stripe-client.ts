// The one way this code base makes a Stripe client: the official package on its fetch HTTP client
// (so it runs in workerd as in Node), loaded on first use, so a Worker without STRIPE_SECRET_KEY never
// loads it. Used by the payment processor (src/platform/providers/payments) and the billing processor
// (src/platform/providers/billing).
import type Stripe from 'stripe';

export interface StripeClientOptions {
  secretKey: string;
  /** Where the API is; Stripe's own (https://api.stripe.com) unless a test points it at a stand-in. */
  host?: string;
  port?: number;
  protocol?: 'http' | 'https';
  /** Retries of network failures, 409s and 5xx (the client sends the same Idempotency-Key). Default 1. */
  maxNetworkRetries?: number;
  /** Whole-request timeout in milliseconds. Default 10 000. */
  timeoutMs?: number;
}

// Per isolate, one client per set of options: a client holds no socket between calls, so it may outlive
// a request. The payment and the billing processor share it.
const clients = new Map<string, Promise<Stripe>>();

/** The client for these options, made on first use and kept for the isolate's life. */
export function stripeClientFor(options: StripeClientOptions): Promise<Stripe> {
  const key = JSON.stringify([
    options.secretKey,
    options.host,
    options.port,
    options.protocol,
    options.maxNetworkRetries,
    options.timeoutMs,
  ]);
  let client = clients.get(key);
  if (!client) {
    client = loadStripeClient(options);
    // A failed load (the module could not be imported) is not kept: the next call tries again.
    client.catch(() => clients.delete(key));
    clients.set(key, client);
  }
  return client;
}

function loadStripeClient(options: StripeClientOptions): Promise<Stripe> {
  return import('stripe').then(({ default: StripeClient }) => {
    const { secretKey, host, port, protocol } = options;
    return new StripeClient(secretKey, {
      httpClient: StripeClient.createFetchHttpClient(),
      maxNetworkRetries: options.maxNetworkRetries ?? 1,
      timeout: options.timeoutMs ?? 10_000,
      telemetry: false,
      appInfo: { name: 'brand-admin-api' },
      ...(host ? { host } : {}),
      ...(port ? { port } : {}),
      ...(protocol ? { protocol } : {}),
    });
  });
}
