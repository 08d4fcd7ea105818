// A small local stand-in for the part of Stripe's REST API this project uses, so the production
// payment processor (src/platform/providers/payments/stripe.ts, the official `stripe` client on its fetch HTTP
// client) is tested end to end without the network. It speaks:
//
//   POST /v1/prices   form-encoded (unit_amount, currency, product or product_data[name], metadata[...],
//                     product_data[metadata][...]); Authorization: Bearer <secret key>.
//                     200 a price object like Stripe's (id price_..., object "price", product prod_...).
//   POST /v1/refunds  payment_intent (pi_...) or charge (ch_...), amount, reason, metadata[...]. 200 a refund
//                     object (id re_..., status succeeded); an amount above what is left of the charge
//                     (charges are registered with addCharge(); unknown ones are taken as large enough)
//                     is 400 charge_already_refunded / amount_too_large, as Stripe answers.
//   POST /v1/transfers amount, currency, destination (acct_...), metadata[...]. 200 a transfer object
//                     (id tr_...); a destination not starting with acct_ is 400 resource_missing.
//   Idempotency-Key:  the same key with the same parameters answers the first response again (with
//                     Idempotent-Replayed: true) and creates nothing; with other parameters 400
//                     idempotency_error, as Stripe does.
//   Errors, shaped like Stripe's { error: { type, code?, param?, message } } with a Request-Id header:
//                     401 unknown key, 400 parameter_missing / parameter_invalid_integer, 404 unknown URL,
//                     and whatever failNext() queues (500 api_error, 429 rate_limit...).
//
// Every request is recorded (method, path, query, headers, parsed form) so tests assert what was sent;
// the recording, key check, failNext and idempotent replays are stripe-http.ts's.
import { newSecretKey, type StripeAnswer, type StripeServer, startStripeServer, stripeError, stripeId } from './stripe-http';

/** host, port and protocol are what StripePaymentProcessor takes. */
export interface StripeStandIn extends StripeServer {
  /** The secret key the stand-in accepts. */
  secretKey: string;
  /** Prices created (replays excluded), by id. */
  prices: Map<string, Record<string, unknown>>;
  /** Refunds and transfers created (replays excluded), by id. */
  refunds: Map<string, Record<string, unknown>>;
  transfers: Map<string, Record<string, unknown>>;
  /** Registers a charge (pi_... or ch_...) of `amount` cents, so refunds beyond it are refused. */
  addCharge(id: string, amount: number): void;
}

/** metadata[a]=1&metadata[b]=2 -> { a: '1', b: '2' } for one prefix. */
function nested(form: Record<string, string>, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(form)) {
    const match = key.startsWith(`${prefix}[`) ? /^\[([^\]]+)\]$/.exec(key.slice(prefix.length)) : null;
    if (match) out[match[1]!] = value;
  }
  return out;
}

export async function startStripeStandIn(options: { secretKey?: string } = {}): Promise<StripeStandIn> {
  const secretKey = options.secretKey ?? newSecretKey();
  const prices = new Map<string, Record<string, unknown>>();
  const refunds = new Map<string, Record<string, unknown>>();
  const transfers = new Map<string, Record<string, unknown>>();
  /** Charge id -> cents still refundable. */
  const charges = new Map<string, number>();

  function createPrice(form: Record<string, string>): StripeAnswer {
    const amount = form.unit_amount;
    if (amount === undefined)
      return {
        status: 400,
        body: stripeError('invalid_request_error', 'Missing required param: unit_amount.', {
          code: 'parameter_missing',
          param: 'unit_amount',
        }),
      };
    if (!/^\d+$/.test(amount) || Number(amount) > 99_999_999) {
      return {
        status: 400,
        body: stripeError('invalid_request_error', `Invalid integer: ${amount}`, {
          code: 'parameter_invalid_integer',
          param: 'unit_amount',
        }),
      };
    }
    if (!form.currency)
      return {
        status: 400,
        body: stripeError('invalid_request_error', 'Missing required param: currency.', { code: 'parameter_missing', param: 'currency' }),
      };
    if (!form.product && !form['product_data[name]']) {
      return {
        status: 400,
        body: stripeError('invalid_request_error', 'You must specify either `product` or `product_data` when creating a price.', {
          code: 'parameter_missing',
          param: 'product_data',
        }),
      };
    }
    const id = stripeId('price');
    const price = {
      id,
      object: 'price',
      active: true,
      billing_scheme: 'per_unit',
      created: Math.floor(Date.now() / 1000),
      currency: form.currency.toLowerCase(),
      custom_unit_amount: null,
      livemode: false,
      lookup_key: null,
      metadata: nested(form, 'metadata'),
      nickname: null,
      product: form.product ?? stripeId('prod'),
      recurring: null,
      tax_behavior: 'unspecified',
      tiers_mode: null,
      transform_quantity: null,
      type: 'one_time',
      unit_amount: Number(amount),
      unit_amount_decimal: amount,
    };
    prices.set(id, price);
    return { status: 200, body: price };
  }

  const missing = (param: string) => ({
    status: 400,
    body: stripeError('invalid_request_error', `Missing required param: ${param}.`, { code: 'parameter_missing', param }),
  });
  const badInteger = (param: string, value: string) => ({
    status: 400,
    body: stripeError('invalid_request_error', `Invalid integer: ${value}`, { code: 'parameter_invalid_integer', param }),
  });

  function createRefund(form: Record<string, string>): StripeAnswer {
    const chargeId = form.payment_intent ?? form.charge;
    if (!chargeId) return missing('payment_intent');
    if (!/^(pi|ch)_/.test(chargeId)) {
      return {
        status: 400,
        body: stripeError('invalid_request_error', `No such payment_intent: '${chargeId}'`, {
          code: 'resource_missing',
          param: form.payment_intent ? 'payment_intent' : 'charge',
        }),
      };
    }
    const amount = form.amount;
    if (amount !== undefined && (!/^\d+$/.test(amount) || Number(amount) < 1)) return badInteger('amount', amount);
    const left = charges.get(chargeId);
    if (left !== undefined) {
      if (left === 0)
        return {
          status: 400,
          body: stripeError('invalid_request_error', `Charge ${chargeId} has already been refunded.`, { code: 'charge_already_refunded' }),
        };
      if (amount !== undefined && Number(amount) > left) {
        return {
          status: 400,
          body: stripeError('invalid_request_error', `Refund amount (${amount}) is greater than unrefunded amount on charge (${left})`, {
            code: 'amount_too_large',
            param: 'amount',
          }),
        };
      }
      charges.set(chargeId, left - Number(amount ?? left));
    }
    const id = stripeId('re');
    const refund = {
      id,
      object: 'refund',
      amount: Number(amount ?? left ?? 0),
      charge: chargeId.startsWith('ch_') ? chargeId : stripeId('ch'),
      created: Math.floor(Date.now() / 1000),
      currency: 'usd',
      metadata: nested(form, 'metadata'),
      payment_intent: chargeId.startsWith('pi_') ? chargeId : null,
      reason: form.reason ?? null,
      status: 'succeeded',
    };
    refunds.set(id, refund);
    return { status: 200, body: refund };
  }

  function createTransfer(form: Record<string, string>): StripeAnswer {
    if (form.amount === undefined) return missing('amount');
    if (!/^\d+$/.test(form.amount) || Number(form.amount) < 1) return badInteger('amount', form.amount);
    if (!form.currency) return missing('currency');
    if (!form.destination) return missing('destination');
    if (!form.destination.startsWith('acct_')) {
      return {
        status: 400,
        body: stripeError('invalid_request_error', `No such destination: '${form.destination}'`, {
          code: 'resource_missing',
          param: 'destination',
        }),
      };
    }
    const id = stripeId('tr');
    const transfer = {
      id,
      object: 'transfer',
      amount: Number(form.amount),
      amount_reversed: 0,
      created: Math.floor(Date.now() / 1000),
      currency: form.currency.toLowerCase(),
      destination: form.destination,
      livemode: false,
      metadata: nested(form, 'metadata'),
      reversed: false,
    };
    transfers.set(id, transfer);
    return { status: 200, body: transfer };
  }

  const HANDLERS: Record<string, (form: Record<string, string>) => StripeAnswer> = {
    '/v1/prices': createPrice,
    '/v1/refunds': createRefund,
    '/v1/transfers': createTransfer,
  };

  const server = await startStripeServer(secretKey, (method, path, _query, form) => {
    const handler = method === 'POST' ? HANDLERS[path] : undefined;
    return handler
      ? handler(form)
      : { status: 404, body: stripeError('invalid_request_error', `Unrecognized request URL (${method}: ${path}).`) };
  });
  return {
    ...server,
    secretKey,
    prices,
    refunds,
    transfers,
    addCharge(id, amount) {
      charges.set(id, amount);
    },
  };
}
