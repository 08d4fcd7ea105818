// The client's verifyWebhook against deliveries signed by the server's own delivery code
// (src/modules/webhooks-checkout/webhooks/deliveries/delivery-headers.ts): both schemes, secret rotation, and
// every way a delivery must be refused.
import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deliveryHeaders } from '../../../src/modules/webhooks-checkout/webhooks/deliveries/delivery-headers';
import { verifyWebhook, WebhookVerificationError } from '../src/index';

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
const now = 1_900_000_000;

async function delivery(secrets: string[], timestamp = now) {
  const body = JSON.stringify({
    id: randomUUID(),
    type: 'order.created',
    createdAt: new Date(timestamp * 1000).toISOString(),
    data: { orderId: randomUUID() },
  });
  const headers = await deliveryHeaders({
    secrets,
    body,
    eventType: 'order.created',
    attemptId: randomUUID(),
    idempotencyKey: `evt_${randomUUID()}`,
    timestamp,
  });
  return { body, headers };
}

const withoutStandardHeaders = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !name.startsWith('webhook-')));

describe('verifyWebhook', () => {
  it('accepts a delivery the server signed (Standard Webhooks headers) and returns the typed event', async () => {
    const secret = newSecret();
    const { body, headers } = await delivery([secret]);
    const event = await verifyWebhook(body, new Headers(headers), secret, { nowSeconds: now + 10 });
    expect(event.type).toBe('order.created');
    if (event.type === 'order.created') expect(event.data.orderId).toBe(JSON.parse(body).data.orderId);
  });

  it('accepts the X-Service-Signature header alone, and a plain header record', async () => {
    const secret = newSecret();
    const { body, headers } = await delivery([secret]);
    await expect(verifyWebhook(body, withoutStandardHeaders(headers), secret, { nowSeconds: now })).resolves.toMatchObject({
      type: 'order.created',
    });
  });

  it('accepts either secret during a rotation (two signatures per scheme)', async () => {
    const [newer, older] = [newSecret(), newSecret()];
    const { body, headers } = await delivery([newer, older]);
    for (const secret of [newer, older]) {
      await expect(verifyWebhook(body, headers, secret, { nowSeconds: now })).resolves.toMatchObject({ type: 'order.created' });
      await expect(verifyWebhook(body, withoutStandardHeaders(headers), secret, { nowSeconds: now })).resolves.toBeTruthy();
    }
  });

  it('refuses a changed body, another secret, a stale or future timestamp and missing headers', async () => {
    const secret = newSecret();
    const { body, headers } = await delivery([secret]);
    const refused = async (promise: Promise<unknown>) => expect(promise).rejects.toBeInstanceOf(WebhookVerificationError);
    await refused(verifyWebhook(body.replace('order.created', 'order.shipped'), headers, secret, { nowSeconds: now }));
    await refused(verifyWebhook(`${body} `, headers, secret, { nowSeconds: now }));
    await refused(verifyWebhook(body, headers, newSecret(), { nowSeconds: now }));
    await refused(verifyWebhook(body, headers, secret, { nowSeconds: now + 301 }));
    await refused(verifyWebhook(body, headers, secret, { nowSeconds: now - 301 }));
    await refused(verifyWebhook(body, { ...headers, 'webhook-id': 'evt_other' }, secret, { nowSeconds: now }));
    await refused(verifyWebhook(body, withoutStandardHeaders(headers), newSecret(), { nowSeconds: now }));
    await refused(verifyWebhook(body, {}, secret, { nowSeconds: now }));
    // Within a wider tolerance the same delivery passes.
    await expect(verifyWebhook(body, headers, secret, { nowSeconds: now + 301, toleranceSeconds: 600 })).resolves.toBeTruthy();
  });
});
