// The benchmark's baseline (scripts/bench): a bare Worker with a plain fetch handler that does only
// the database work of GET /api/v1/orders?limit=25 and GET /api/v1/orders/{id}: the key lookup by hash,
// then the route's statement, with the same driver as the API (node-postgres on the Hyperdrive
// binding, one pool of one connection per request, closed in waitUntil) and the very SQL the API
// sends (bare-sql.ts). No framework, no validation, no request log.
//
// With LIMIT="1" it is the bench's *bare+limit* peer: the same plus the one Redis call the API must make
// on every request (its rate limits and the key cache's revocation markers, one script through the same
// UpstashRateLimiter, src/platform/rate-limit/upstash.ts), sent alongside its statements as the API sends
// it alongside its query, and obeyed (429 when a limit refuses, 401 when a marker is set). The script's
// keys are the same in number and kind as the API's for a cached key: the address's minute (looked at),
// the key's minute and burst (counted), the key's and the clinic's markers. Without LIMIT no rate limits.
import pg from 'pg';
import { type CorkableStream, coalesceWrites } from '../../src/platform/db/client';
import { IP_MINUTE, KEY_BURST, keyMinuteRule, scaleRules } from '../../src/platform/rate-limit/policy';
import { UpstashRateLimiter } from '../../src/platform/rate-limit/upstash';
import { KEY_LOOKUP, ORDER_DETAIL, ORDERS_PAGE } from './bare-sql';

interface Env {
  HYPERDRIVE: { connectionString: string };
  /** "1": a statement's messages leave in one socket write, as the API sends them (coalesceWrites). */
  COALESCE_WRITES?: string;
  /** "1": bare+limit (above). */
  LIMIT?: string;
  UPSTASH_REDIS_REST_URL?: string;
  UPSTASH_REDIS_REST_TOKEN?: string;
  RATE_LIMIT_MULTIPLIER?: string;
}

/** Kept per isolate, as the API keeps its limiter's client. */
let limiter: UpstashRateLimiter | undefined;

/** The API's gateway check for a cached key: one script, one round trip. Resolves to a refusal or null. */
async function limitCheck(env: Env, keyHash: string, address: string): Promise<Response | null> {
  limiter ??= new UpstashRateLimiter({ url: env.UPSTASH_REDIS_REST_URL!, token: env.UPSTASH_REDIS_REST_TOKEN! });
  const multiplier = Number(env.RATE_LIMIT_MULTIPLIER ?? 1);
  // The key's id and clinic are not known before the lookup this Worker makes on every request: the
  // counters and markers are named after the key's hash instead (the same number of keys in the script).
  const id = keyHash.slice(0, 32);
  const keyRules = scaleRules([keyMinuteRule({ isSandbox: false, rateLimitPerMin: null }), KEY_BURST], multiplier);
  const verdict = await limiter.check({
    peek: [{ rule: scaleRules([IP_MINUTE], multiplier)[0]!, identifier: `ip:${address}` }],
    limit: keyRules.map((rule) => ({ rule, identifier: `key:${id}` })),
    markers: [`key:${id}`, `clinic:${id}`],
  });
  if ([...verdict.peek, ...verdict.limit].some((result) => !result.success)) return json(429, { error: 'rate limited' });
  if (verdict.marked !== false) return json(401, { error: 'unauthorized' });
  return null;
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === '/healthz') return json(200, { ok: true });
    const single = /^\/api\/v1\/orders\/([^/]+)$/.exec(url.pathname);
    if (url.pathname !== '/api/v1/orders' && !single) return json(404, { error: 'not found' });
    const key = request.headers.get('x-api-key');
    if (!key) return json(401, { error: 'unauthorized' });
    const pool = new pg.Pool({ connectionString: env.HYPERDRIVE.connectionString, max: 1 });
    pool.on('error', () => {});
    if (env.COALESCE_WRITES === '1') {
      pool.on('connect', (client) => coalesceWrites((client as unknown as { connection: { stream: CorkableStream } }).connection.stream));
    }
    try {
      const keyHash = await sha256Hex(key);
      const refusal =
        env.LIMIT === '1' ? limitCheck(env, keyHash, request.headers.get('cf-connecting-ip') ?? '127.0.0.1') : Promise.resolve(null);
      refusal.catch(() => {}); // awaited below; an early return must not leave it unhandled
      const answer = await (async () => {
        const { rows: keys } = await pool.query(KEY_LOOKUP, [keyHash, 1]);
        const found = keys[0] as { clinic_id: string; revoked_at: Date | null } | undefined;
        if (!found || found.revoked_at) return json(401, { error: 'unauthorized' });
        if (single) {
          const { rows } = await pool.query(ORDER_DETAIL, [found.clinic_id, single[1]]);
          return rows[0] ? json(200, { data: rows[0].order }) : json(404, { error: 'not found' });
        }
        const limit = Number(url.searchParams.get('limit') ?? 25);
        const { rows } = await pool.query(ORDERS_PAGE, [
          found.clinic_id,
          0,
          found.clinic_id,
          limit,
          0,
          found.clinic_id,
          found.clinic_id,
          found.clinic_id,
          found.clinic_id,
        ]);
        const total = Number(rows[0].total);
        return json(200, { data: rows[0].items, pagination: { page: 1, limit, total, totalPages: Math.ceil(total / limit) } });
      })();
      return (await refusal) ?? answer;
    } finally {
      ctx.waitUntil(pool.end());
    }
  },
};
