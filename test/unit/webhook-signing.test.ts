import { createHmac } from 'node:crypto';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import {
  serviceSignature,
  serviceSignatureHeader,
  standardSignature,
  standardSignatureHeader,
  verifyStandardSignature as verifyStandardWebhook,
  verifyServiceSignature as verifyWebhook,
} from '../../clients/typescript/src/webhook-signature';
import { deliveryHeaders } from '../../src/modules/webhooks-checkout/webhooks/deliveries/delivery-headers';
import {
  MAX_ATTEMPTS,
  MAX_RETRY_AFTER_MS,
  nextAttemptAt,
  parseRetryAfter,
  RETRY_SCHEDULE_MS,
} from '../../src/modules/webhooks-checkout/webhooks/deliveries/schedule';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'; // Standard Webhooks' documented example secret
const OTHER = `whsec_${Buffer.from('b'.repeat(32)).toString('base64')}`;
const BODY = '{"id":"e1","type":"order.created","createdAt":"2026-01-01T00:00:00.000Z","data":{"orderId":"o1"}}';
const T = 1_767_225_600;

describe('X-Service-Signature (Stripe scheme)', () => {
  it('is the hex HMAC-SHA256 of "<t>.<body>" keyed with the whole secret string, whsec_ included', async () => {
    const expected = createHmac('sha256', SECRET).update(`${T}.${BODY}`).digest('hex');
    expect(await serviceSignature(SECRET, T, BODY)).toBe(expected);
    expect(await serviceSignatureHeader([SECRET], T, BODY)).toBe(`t=${T},v1=${expected}`);
  });

  it('carries one v1= entry per active secret, newest first', async () => {
    const header = await serviceSignatureHeader([SECRET, OTHER], T, BODY);
    const parts = header.split(',');
    expect(parts).toHaveLength(3);
    expect(parts[1]).toBe(`v1=${await serviceSignature(SECRET, T, BODY)}`);
    expect(parts[2]).toBe(`v1=${await serviceSignature(OTHER, T, BODY)}`);
  });

  it("verifies with the stripe package's verifier (the same scheme)", async () => {
    const now = Math.floor(Date.now() / 1000);
    const header = await serviceSignatureHeader([SECRET], now, BODY);
    const event = Stripe.webhooks.constructEvent(BODY, header, SECRET, 300);
    expect((event as unknown as { id: string }).id).toBe('e1');
    const rotated = await serviceSignatureHeader([OTHER, SECRET], now, BODY);
    expect(() => Stripe.webhooks.constructEvent(BODY, rotated, SECRET, 300)).not.toThrow();
    expect(() => Stripe.webhooks.constructEvent(`${BODY} `, header, SECRET, 300)).toThrow();
  });
});

describe('verifyWebhook', () => {
  it('accepts a valid header within the tolerance, under either secret of a rotation', async () => {
    const header = await serviceSignatureHeader([OTHER, SECRET], T, BODY);
    expect(await verifyWebhook(BODY, header, SECRET, 300, T + 299)).toBe(true);
    expect(await verifyWebhook(BODY, header, OTHER, 300, T - 300)).toBe(true);
  });

  it('refuses an old or future timestamp, a changed body, another secret, a missing or garbled header', async () => {
    const header = await serviceSignatureHeader([SECRET], T, BODY);
    expect(await verifyWebhook(BODY, header, SECRET, 300, T + 301)).toBe(false);
    expect(await verifyWebhook(BODY, header, SECRET, 300, T - 301)).toBe(false);
    expect(await verifyWebhook(BODY.replace('o1', 'o2'), header, SECRET, 300, T)).toBe(false);
    expect(await verifyWebhook(BODY, header, OTHER, 300, T)).toBe(false);
    expect(await verifyWebhook(BODY, null, SECRET, 300, T)).toBe(false);
    expect(await verifyWebhook(BODY, 'garbage', SECRET, 300, T)).toBe(false);
    expect(await verifyWebhook(BODY, `t=${T}`, SECRET, 300, T)).toBe(false);
    expect(await verifyWebhook(BODY, header.replace(`t=${T}`, `t=${T + 1}`), SECRET, 300, T)).toBe(false);
  });
});

describe('webhook-signature (Standard Webhooks scheme)', () => {
  it('is v1,<base64 HMAC-SHA256 of "<id>.<t>.<body>"> keyed with the base64-decoded part after whsec_', async () => {
    const key = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`msg_1.${T}.${BODY}`).digest('base64');
    expect(await standardSignature(SECRET, 'msg_1', T, BODY)).toBe(expected);
    expect(await standardSignatureHeader([SECRET, OTHER], 'msg_1', T, BODY)).toBe(
      `v1,${expected} v1,${await standardSignature(OTHER, 'msg_1', T, BODY)}`,
    );
  });

  it("matches the Standard Webhooks specification's published example", async () => {
    // github.com/standard-webhooks/standard-webhooks spec example.
    const body = '{"test": 2432232314}';
    expect(await standardSignature(SECRET, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, body)).toBe(
      'g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  it('verifies by recomputation and refuses tampering', async () => {
    const signature = await standardSignatureHeader([OTHER, SECRET], 'k1', T, BODY);
    expect(await verifyStandardWebhook(BODY, { id: 'k1', timestamp: String(T), signature }, SECRET, 300, T)).toBe(true);
    expect(await verifyStandardWebhook(BODY, { id: 'k2', timestamp: String(T), signature }, SECRET, 300, T)).toBe(false);
    expect(await verifyStandardWebhook(BODY, { id: 'k1', timestamp: String(T), signature }, SECRET, 300, T + 400)).toBe(false);
  });
});

describe('deliveryHeaders', () => {
  it('sends every header of an attempt, signed with the given timestamp', async () => {
    const headers = await deliveryHeaders({
      secrets: [SECRET],
      body: BODY,
      eventType: 'order.created',
      attemptId: 'a1',
      idempotencyKey: 'evt_1_2',
      timestamp: T,
    });
    expect(headers).toMatchObject({
      'content-type': 'application/json',
      'x-service-event': 'order.created',
      'x-service-delivery-id': 'a1',
      'x-service-idempotency-key': 'evt_1_2',
      'webhook-id': 'evt_1_2',
      'webhook-timestamp': String(T),
      'x-service-signature': await serviceSignatureHeader([SECRET], T, BODY),
      'webhook-signature': await standardSignatureHeader([SECRET], 'evt_1_2', T, BODY),
    });
  });

  it('refuses to sign without a secret', async () => {
    await expect(
      deliveryHeaders({ secrets: [], body: BODY, eventType: 'x', attemptId: 'a', idempotencyKey: 'k', timestamp: T }),
    ).rejects.toThrow();
  });
});

describe('retry schedule', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  const waitAfter = (attempts: number, random: number, retryAfter: number | null = null) =>
    nextAttemptAt(attempts, now, retryAfter, () => random)!.getTime() - now.getTime();

  it('is 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: eight attempts in all', () => {
    expect(RETRY_SCHEDULE_MS).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(MAX_ATTEMPTS).toBe(8);
    for (const [i, step] of RETRY_SCHEDULE_MS.entries()) expect(waitAfter(i + 1, 0.5)).toBe(step);
  });

  it('moves each wait by at most ±10% (jitter)', () => {
    expect(waitAfter(2, 0)).toBe(270_000);
    expect(waitAfter(2, 0.999999)).toBeLessThanOrEqual(330_000);
    expect(waitAfter(2, 0.999999)).toBeGreaterThan(329_000);
  });

  it('ends after the eighth attempt', () => {
    expect(nextAttemptAt(8, now)).toBeNull();
    expect(nextAttemptAt(7, now)).not.toBeNull();
  });

  it('honours Retry-After within [schedule step, 10 h]', () => {
    expect(waitAfter(2, 0.5, 3_600_000)).toBe(3_600_000); // longer than 5 min: honoured
    expect(waitAfter(2, 0.5, 1_000)).toBe(300_000); // shorter than the step: the step
    expect(waitAfter(1, 0.5, 48 * 3_600_000)).toBe(MAX_RETRY_AFTER_MS); // capped at 10 h
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(new Date(now.getTime() + 60_000).toUTCString(), now)).toBe(60_000);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });
});
