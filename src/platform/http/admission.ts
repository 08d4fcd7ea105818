// A write that runs before the rate-limit store has let it through (gateway.ts): its handler runs
// alongside the store's round trip, so the store's answer costs the write no trip of its own, but
// nothing of it takes effect before that answer. Its request transaction waits for the admission
// before COMMIT (audit.ts, idempotency.ts), and every provider call (Stripe, Resend, Cloudflare, R2...)
// waits for it before calling out. A refused write therefore rolls back and has called no provider.
import type { Context } from 'hono';
import type { AppEnv, Services } from '../context';
import type { Providers } from '../providers';

/** Waits until the request is let through; throws the refusal. Resolves at once where nothing is pending. */
export async function admitted(c: Context<AppEnv>): Promise<void> {
  await c.get('admitted')?.();
}

/** Whether the request is let through, without throwing (for work that is skipped, not failed, on a refusal). */
export async function isAdmitted(c: Context<AppEnv>): Promise<boolean> {
  return admitted(c).then(
    () => true,
    () => false,
  );
}

/** Provider members that are factories: they answer a provider for a choice, which is gated in turn. */
const FACTORIES = ['paymentsFor', 'billing', 'smsNumbers', 'customHostnames', 'emailDomains'] as const;
/** Provider members that are providers (or null). */
const INSTANCES = ['storage', 'payments', 'ai', 'messaging', 'messageTransport', 'deliveryQueue', 'hostResolver'] as const;

// Every member of Providers is one or the other: a provider added without being listed fails to compile.
type Listed = (typeof FACTORIES)[number] | (typeof INSTANCES)[number];
const everyProviderListed: Exclude<keyof Providers, Listed> extends never ? true : never = true;
void everyProviderListed;

/**
 * Methods of providers that compute a value without calling out (an object's public URL, whether a
 * payout account is connected): called at once. Every other method returns a promise and is held.
 */
const LOCAL_METHODS = new Set<PropertyKey>(['urlFor', 'payoutsConnected']);

/** The provider with each of its calls held until `until` resolves (and refused when it rejects). */
function held<T>(provider: T, until: () => Promise<void>): T {
  if (provider === null || typeof provider !== 'object') return provider;
  return new Proxy(provider as object, {
    get(target, name) {
      const value = Reflect.get(target, name, target);
      if (typeof value !== 'function') return held(value, until);
      if (LOCAL_METHODS.has(name)) return value.bind(target);
      return (...args: unknown[]) => until().then(() => value.apply(target, args));
    },
  }) as T;
}

/** The request's services with every provider call held until the request is let through. */
export function admittedServices(services: Services, until: () => Promise<void>): Services {
  const gated = Object.create(services) as Services;
  for (const name of INSTANCES) {
    Object.defineProperty(gated, name, { get: () => held(services[name], until), enumerable: true });
  }
  for (const name of FACTORIES) {
    Object.defineProperty(gated, name, {
      get: () => {
        const factory = services[name] as (...args: unknown[]) => unknown;
        return (...args: unknown[]) => held(factory.apply(services, args), until);
      },
      enumerable: true,
    });
  }
  return gated;
}
