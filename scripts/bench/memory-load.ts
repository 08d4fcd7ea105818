// The requests the memory measurement sends (scripts/bench/memory.ts, test/integration/worker-memory.test.ts):
// one cheap GET per area (the areas load on their first request, src/areas.ts), then a mix of reads and
// writes across the areas at bounded concurrency, on loopback only.
import { apiKeys } from '../../drizzle/schema';
import type { AreaName } from '../../src/area-routes';
import { generateApiKey } from '../../src/platform/auth/api-key-format';
import { connect } from '../lib/database';

/** One read per area: what makes the area's modules load (its schemas, routes and services). */
export const AREA_READS: Record<AreaName, string> = {
  access: '/api/v1/me',
  catalog: '/api/v1/products',
  orders: '/api/v1/orders?limit=25',
  'webhooks-checkout': '/api/v1/webhooks',
  crm: '/api/v1/contacts',
  storefront: '/api/v1/page-builder/pages',
  organization: '/api/v1/organization',
};

/** Reads of the mix, beyond one per area: lists and reports a brand's dashboard asks for. */
const MORE_READS = [
  '/api/v1/coupons',
  '/api/v1/tags',
  '/api/v1/customers',
  '/api/v1/dashboard/overview',
  '/api/v1/request-logs?limit=10',
  '/api/v1/events',
  '/api/v1/programs',
  '/api/v1/notifications',
];

interface Call {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  body?: unknown;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

function checkLoopback(base: string): void {
  const host = new URL(base).hostname;
  if (!LOOPBACK.has(host)) throw new Error(`the memory load only targets this machine, not ${host}`);
}

async function send(base: string, key: string, call: Call): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${base}${call.path}`, {
    method: call.method,
    headers: { 'x-api-key': key, ...(call.body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: call.body === undefined ? undefined : JSON.stringify(call.body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: kept as text for the error message
  }
  return { status: response.status, body };
}

/** GET of each area in turn; throws unless every one answers 200. */
export async function warmAreas(base: string, key: string): Promise<void> {
  checkLoopback(base);
  for (const [area, path] of Object.entries(AREA_READS)) {
    const { status, body } = await send(base, key, { method: 'GET', path });
    if (status !== 200) throw new Error(`${area}: GET ${path} answered ${status}: ${JSON.stringify(body).slice(0, 300)}`);
  }
}

export interface MixResult {
  requests: number;
  statuses: Record<string, number>;
  /** Non-2xx answers or failures, the first few with their path. */
  errors: string[];
  elapsedMs: number;
}

/**
 * `count` requests, `concurrency` at a time: four reads in five (every area's read and the others in
 * turn), one write in five (a tag, a coupon then its deletion, a contact; each name unique to `run`).
 * The key needs the read and write scopes.
 */
export async function mixedRequests(
  base: string,
  key: string,
  options: { count: number; concurrency: number; run: string },
): Promise<MixResult> {
  checkLoopback(base);
  const reads = [...Object.values(AREA_READS), ...MORE_READS];
  let issued = 0;
  let readTurn = 0;
  let writeTurn = 0;
  const result: MixResult = { requests: 0, statuses: {}, errors: [], elapsedMs: 0 };
  const record = (call: Call, status: number | string, body?: unknown) => {
    result.requests += 1;
    result.statuses[String(status)] = (result.statuses[String(status)] ?? 0) + 1;
    const ok = typeof status === 'number' && status >= 200 && status < 300;
    if (!ok && result.errors.length < 10)
      result.errors.push(`${call.method} ${call.path}: ${status} ${JSON.stringify(body ?? '').slice(0, 200)}`);
    return ok;
  };
  const one = async (call: Call) => {
    try {
      const { status, body } = await send(base, key, call);
      return record(call, status, body) ? body : undefined;
    } catch (error) {
      record(call, 'failed', error instanceof Error ? error.message : String(error));
      return undefined;
    }
  };
  const started = performance.now();
  async function client(): Promise<void> {
    while (issued < options.count) {
      const n = issued++;
      if (n % 5 !== 4) {
        await one({ method: 'GET', path: reads[readTurn++ % reads.length]! });
        continue;
      }
      const id = `${options.run}-${n}`;
      switch (writeTurn++ % 3) {
        case 0:
          await one({ method: 'POST', path: '/api/v1/tags', body: { name: `Tag ${id}`, color: '#1F8A70' } });
          break;
        case 1: {
          const created = (await one({
            method: 'POST',
            path: '/api/v1/coupons',
            body: { code: `M${id}`.replace(/[^A-Za-z0-9]/g, '').slice(0, 40), discountType: 'percent', discountValue: 10 },
          })) as { data?: { id: string } } | undefined;
          if (created?.data?.id && issued < options.count) {
            issued++;
            await one({ method: 'DELETE', path: `/api/v1/coupons/${created.data.id}` });
          }
          break;
        }
        default:
          await one({
            method: 'POST',
            path: '/api/v1/contacts',
            body: { firstName: 'Memory', lastName: 'Check', email: `m-${id}@example.com` },
          });
      }
    }
  }
  await Promise.all(Array.from({ length: options.concurrency }, client));
  result.elapsedMs = performance.now() - started;
  return result;
}

/** A read+write secret key of `clinicId`, written straight to the database (no request reaches the Worker). */
export async function insertKey(databaseUrl: string, clinicId: string): Promise<string> {
  const generated = await generateApiKey('secret', false);
  const { db, close } = connect(databaseUrl, 1);
  try {
    await db.insert(apiKeys).values({
      clinicId,
      name: `memory ${generated.keyPrefix}`,
      kind: 'secret',
      keyPrefix: generated.keyPrefix,
      keyHash: generated.keyHash,
      scopes: ['read', 'write'],
      isSandbox: false,
      expiresAt: new Date(Date.now() + 86_400_000),
    });
  } finally {
    await close();
  }
  return generated.raw;
}

/** The bare Worker's only routes (scripts/bench/bare-worker.ts): four order lists in five, one order. */
export async function bareRequests(
  base: string,
  key: string,
  options: { count: number; concurrency: number; orderId: string },
): Promise<MixResult> {
  checkLoopback(base);
  let issued = 0;
  const result: MixResult = { requests: 0, statuses: {}, errors: [], elapsedMs: 0 };
  const started = performance.now();
  async function client(): Promise<void> {
    while (issued < options.count) {
      const n = issued++;
      const path = n % 5 === 4 ? `/api/v1/orders/${options.orderId}` : '/api/v1/orders?limit=25';
      let status: number | string;
      try {
        status = (await send(base, key, { method: 'GET', path })).status;
      } catch (error) {
        status = 'failed';
        if (result.errors.length < 10) result.errors.push(`GET ${path}: ${error instanceof Error ? error.message : String(error)}`);
      }
      result.requests += 1;
      result.statuses[String(status)] = (result.statuses[String(status)] ?? 0) + 1;
      if (status !== 200 && status !== 'failed' && result.errors.length < 10) result.errors.push(`GET ${path}: ${status}`);
    }
  }
  await Promise.all(Array.from({ length: options.concurrency }, client));
  result.elapsedMs = performance.now() - started;
  return result;
}
