// The webhook test files' shared set-up: a local receiver for the file's tests, and delivery options
// with a fixed retry jitter. Like useTestApp, the receiver is a stand-in until beforeAll has started it.
import { afterAll, beforeAll } from 'vitest';
import type { DeliveryOptions } from '../../src/modules/webhooks-checkout/webhooks/deliveries/deliver';
import { deliveryOptions } from '../../src/modules/webhooks-checkout/webhooks/deliveries/dispatcher-runs';
import { startWebhookReceiver, type WebhookReceiver } from '../tooling/webhook-receiver';
import type { TestApp } from './app';

/**
 * A receiver on http://127.0.0.1 started before the file's tests and closed after them; the app may
 * call it (the development flag for insecure localhost URLs: every attempt checks the URL again).
 */
export function useWebhookReceiver(t: TestApp): WebhookReceiver {
  const holder = {} as { current: WebhookReceiver };
  beforeAll(async () => {
    holder.current = await startWebhookReceiver();
    t.config.webhookAllowInsecureLocalhost = true;
  });
  afterAll(async () => holder.current?.close());
  return new Proxy({} as WebhookReceiver, {
    get: (_, prop) => holder.current[prop as keyof WebhookReceiver],
    set: (_, prop, value) => Reflect.set(holder.current, prop, value),
  });
}

/** The delivery options of the test app, with the retry jitter fixed (random 0.5): schedules are exact. */
export const fixedDeliveryOptions = (t: TestApp): DeliveryOptions => ({ ...deliveryOptions(t.services), random: () => 0.5 });
