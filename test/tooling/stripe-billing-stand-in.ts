// A small local stand-in for the part of Stripe's REST API the billing processor uses
// (src/platform/providers/billing/stripe.ts: the official `stripe` client on its fetch HTTP client), in the manner
// of stripe-stand-in.ts, so the adapter is tested end to end without the network. It speaks:
//
//   GET    /v1/accounts/{id}        a Connect account (charges_enabled, payouts_enabled, details_submitted,
//                                   requirements.currently_due/past_due); unknown: 404 resource_missing.
//   GET    /v1/subscriptions/{id}   a subscription with one item (price, current_period_start/end on the item,
//                                   as in API versions from 2025-03-31); unknown: 404 resource_missing.
//   GET    /v1/prices               lookup_keys[] (or lookup_keys[N]), active, limit: a list of prices.
//   POST   /v1/subscriptions/{id}   items[0][id], items[0][price], proration_behavior, proration_date,
//                                   metadata[...]: moves the item to the price (period kept); a canceled
//                                   subscription or an unknown item/price is 400, as Stripe answers.
//   DELETE /v1/subscriptions/{id}   cancels now (status canceled, canceled_at).
//   Idempotency-Key on POST/DELETE: the same key and parameters replay the first answer (Idempotent-Replayed:
//   true); other parameters: 400 idempotency_error.
//   Errors shaped like Stripe's { error: { type, code?, param?, message } }; 401 for another key; failNext().
// Every request is recorded (method, path, query, form, headers) so tests count and inspect calls.
import { newSecretKey, type StripeServer, startStripeServer, stripeError, stripeId } from './stripe-http';

export interface StandInAccount {
  id: string;
  charges_enabled: boolean;
  payouts_enabled: boolean;
  details_submitted: boolean;
  requirements: { currently_due: string[]; past_due: string[]; disabled_reason: string | null };
}

export interface StandInSubscription {
  id: string;
  status: string;
  itemId: string;
  priceId: string;
  periodStart: number;
  periodEnd: number;
  canceledAt: number | null;
  metadata: Record<string, string>;
  /** The proration_behavior and proration_date of the last update, as sent. */
  lastUpdate: Record<string, string> | null;
}

export interface StripeBillingStandIn extends StripeServer {
  secretKey: string;
  accounts: Map<string, StandInAccount>;
  subscriptions: Map<string, StandInSubscription>;
  addAccount(fields?: Partial<Omit<StandInAccount, 'requirements'>> & { currentlyDue?: string[]; pastDue?: string[] }): StandInAccount;
  addPrice(lookupKey: string, unitAmount: number): string;
  addSubscription(fields: { priceId: string; periodStart: Date; periodEnd: Date; status?: string }): StandInSubscription;
}

const missing = (what: string, id: string) => ({
  status: 404,
  body: stripeError('invalid_request_error', `No such ${what}: '${id}'`, { code: 'resource_missing', param: 'id' }),
});

export async function startStripeBillingStandIn(options: { secretKey?: string } = {}): Promise<StripeBillingStandIn> {
  const secretKey = options.secretKey ?? newSecretKey();
  const accounts = new Map<string, StandInAccount>();
  const subscriptions = new Map<string, StandInSubscription>();
  const prices = new Map<string, { id: string; lookup_key: string; unit_amount: number; active: boolean }>();

  const priceObject = (id: string) => {
    const p = prices.get(id)!;
    return {
      id,
      object: 'price',
      active: p.active,
      currency: 'usd',
      lookup_key: p.lookup_key,
      unit_amount: p.unit_amount,
      type: 'recurring',
      recurring: { interval: 'month', interval_count: 1 },
    };
  };
  const accountObject = (a: StandInAccount) => ({ object: 'account', type: 'express', ...a });
  const subscriptionObject = (s: StandInSubscription) => ({
    id: s.id,
    object: 'subscription',
    status: s.status,
    canceled_at: s.canceledAt,
    metadata: s.metadata,
    items: {
      object: 'list',
      has_more: false,
      url: `/v1/subscription_items?subscription=${s.id}`,
      data: [
        {
          id: s.itemId,
          object: 'subscription_item',
          price: priceObject(s.priceId),
          quantity: 1,
          current_period_start: s.periodStart,
          current_period_end: s.periodEnd,
        },
      ],
    },
  });

  function route(
    method: string,
    path: string,
    query: Record<string, string>,
    form: Record<string, string>,
  ): { status: number; body: unknown } {
    let m = /^\/v1\/accounts\/([^/]+)$/.exec(path);
    if (m && method === 'GET') {
      const account = accounts.get(m[1]!);
      return account ? { status: 200, body: accountObject(account) } : missing('account', m[1]!);
    }
    if (path === '/v1/prices' && method === 'GET') {
      const keys = Object.entries(query)
        .filter(([k]) => /^lookup_keys\[\d*\]$/.test(k))
        .map(([, v]) => v);
      const limit = Number(query.limit ?? 10);
      const data = [...prices.values()]
        .filter(
          (p) => (keys.length === 0 || keys.includes(p.lookup_key)) && (query.active === undefined || String(p.active) === query.active),
        )
        .slice(0, limit)
        .map((p) => priceObject(p.id));
      return { status: 200, body: { object: 'list', data, has_more: false, url: '/v1/prices' } };
    }
    m = /^\/v1\/subscriptions\/([^/]+)$/.exec(path);
    if (m) {
      const sub = subscriptions.get(m[1]!);
      if (!sub) return missing('subscription', m[1]!);
      if (method === 'GET') return { status: 200, body: subscriptionObject(sub) };
      if (method === 'DELETE') {
        if (sub.status === 'canceled')
          return {
            status: 400,
            body: stripeError('invalid_request_error', `No such subscription: '${sub.id}'`, { code: 'resource_missing' }),
          };
        sub.status = 'canceled';
        sub.canceledAt = Math.floor(Date.now() / 1000);
        return { status: 200, body: subscriptionObject(sub) };
      }
      if (method === 'POST') {
        if (sub.status === 'canceled') {
          return {
            status: 400,
            body: stripeError('invalid_request_error', 'A canceled subscription can only update its cancellation_details and metadata.'),
          };
        }
        const itemId = form['items[0][id]'];
        const priceId = form['items[0][price]'];
        if (itemId && itemId !== sub.itemId) return missing('subscription_item', itemId);
        if (priceId) {
          if (!prices.has(priceId))
            return {
              status: 400,
              body: stripeError('invalid_request_error', `No such price: '${priceId}'`, {
                code: 'resource_missing',
                param: 'items[0][price]',
              }),
            };
          sub.priceId = priceId;
        }
        if (form.proration_date !== undefined && !/^\d+$/.test(form.proration_date)) {
          return {
            status: 400,
            body: stripeError('invalid_request_error', `Invalid integer: ${form.proration_date}`, {
              code: 'parameter_invalid_integer',
              param: 'proration_date',
            }),
          };
        }
        for (const [key, value] of Object.entries(form)) {
          const meta = /^metadata\[([^\]]+)\]$/.exec(key);
          if (meta) sub.metadata[meta[1]!] = value;
        }
        sub.lastUpdate = { proration_behavior: form.proration_behavior ?? '', proration_date: form.proration_date ?? '' };
        return { status: 200, body: subscriptionObject(sub) };
      }
    }
    return { status: 404, body: stripeError('invalid_request_error', `Unrecognized request URL (${method}: ${path}).`) };
  }

  const server = await startStripeServer(secretKey, route);
  return {
    ...server,
    secretKey,
    accounts,
    subscriptions,
    addAccount(fields = {}) {
      const { currentlyDue = [], pastDue = [], ...rest } = fields;
      const account: StandInAccount = {
        id: stripeId('acct'),
        charges_enabled: false,
        payouts_enabled: false,
        details_submitted: false,
        ...rest,
        requirements: { currently_due: currentlyDue, past_due: pastDue, disabled_reason: null },
      };
      accounts.set(account.id, account);
      return account;
    },
    addPrice(lookupKey, unitAmount) {
      const id = stripeId('price');
      prices.set(id, { id, lookup_key: lookupKey, unit_amount: unitAmount, active: true });
      return id;
    },
    addSubscription({ priceId, periodStart, periodEnd, status = 'active' }) {
      const sub: StandInSubscription = {
        id: stripeId('sub'),
        status,
        itemId: stripeId('si'),
        priceId,
        periodStart: Math.floor(periodStart.getTime() / 1000),
        periodEnd: Math.floor(periodEnd.getTime() / 1000),
        canceledAt: null,
        metadata: {},
        lastUpdate: null,
      };
      subscriptions.set(sub.id, sub);
      return sub;
    },
  };
}
