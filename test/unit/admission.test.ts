// A write's provider calls are held until the rate-limit store lets the request through
// (src/platform/http/admission.ts): a refused write has called no provider.
import { describe, expect, it } from 'vitest';
import type { Services } from '../../src/platform/context';
import { admittedServices } from '../../src/platform/http/admission';

function deferred() {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => {});
  return { promise, resolve, reject };
}

/** Services whose storage and payment processor record their calls. */
function recordingServices() {
  const calls: string[] = [];
  const storage = {
    base: 'https://files.example',
    async put(key: string) {
      calls.push(`put ${key}`);
      return { key };
    },
    urlFor(key: string) {
      return `${this.base}/${key}`;
    },
  };
  const payments = {
    async createPrice() {
      calls.push('createPrice');
      return { id: 'price_1' };
    },
    async changePlan() {
      calls.push('changePlan');
    },
    payoutsConnected: () => true,
  };
  const transport = {
    email: {
      async deliver() {
        calls.push('email');
      },
    },
    sms: null,
  };
  const services = {
    storage,
    payments,
    paymentsFor: () => payments,
    billing: () => payments,
    ai: null,
    messaging: {},
    messageTransport: transport,
    smsNumbers: () => ({}),
    customHostnames: () => ({}),
    emailDomains: () => ({}),
    deliveryQueue: null,
    hostResolver: {},
    config: { environment: 'test' },
  } as unknown as Services;
  return { services, calls };
}

describe('provider calls held until the request is let through', () => {
  it('a call waits for the admission, then runs with its arguments and answers its result', async () => {
    const { services, calls } = recordingServices();
    const gate = deferred();
    const held = admittedServices(services, () => gate.promise);
    const put = held.storage.put('a/b.png', new Uint8Array(0), 'image/png');
    const price = held.paymentsFor({ sandbox: false }).createPrice({} as never);
    const email = held.messageTransport.email!.deliver({} as never);
    await new Promise((r) => setTimeout(r, 5));
    expect(calls).toEqual([]);
    gate.resolve();
    expect(await put).toEqual({ key: 'a/b.png' });
    expect(await price).toEqual({ id: 'price_1' });
    await email;
    expect(calls).toEqual(['put a/b.png', 'createPrice', 'email']);
  });

  it('refused, no call is made and each answers the refusal', async () => {
    const { services, calls } = recordingServices();
    const gate = deferred();
    const held = admittedServices(services, () => gate.promise);
    const put = held.storage.put('a/b.png', new Uint8Array(0), 'image/png');
    const refusal = new Error('429');
    gate.reject(refusal);
    await expect(put).rejects.toBe(refusal);
    await expect(held.billing().changePlan({} as never)).rejects.toBe(refusal);
    expect(calls).toEqual([]);
  });

  it('methods that only compute (a public URL, whether payouts are connected) answer at once; the rest of the services are untouched', () => {
    const { services } = recordingServices();
    const held = admittedServices(services, () => new Promise(() => {}));
    expect(held.storage.urlFor('k')).toBe('https://files.example/k');
    expect(held.payments.payoutsConnected?.('clinic')).toBe(true);
    expect(held.ai).toBeNull();
    expect(held.deliveryQueue).toBeNull();
    expect(held.config).toBe(services.config);
  });
});
