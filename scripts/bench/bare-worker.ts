// The benchmark's baseline (scripts/bench): a bare Worker with a plain fetch handler that does only
// the database work of GET /api/v1/orders?limit=25 and GET /api/v1/orders/{id}: the key lookup by hash,
// then the route's statement, with the same driver as the API (node-postgres on the Hyperdrive
// binding, one pool of one connection per request, closed in waitUntil) and the very SQL the API
// sends (bare-sql.ts). No framework, no validation, no rate limits, no request log.
import pg from 'pg';
import { type CorkableStream, coalesceWrites } from '../../src/platform/db/client';
import { KEY_LOOKUP, ORDER_DETAIL, ORDERS_PAGE } from './bare-sql';

interface Env {
  HYPERDRIVE: { connectionString: string };
  /** "1": a statement's messages leave in one socket write, as the API sends them (coalesceWrites). */
  COALESCE_WRITES?: string;
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
      const { rows: keys } = await pool.query(KEY_LOOKUP, [await sha256Hex(key), 1]);
      const found = keys[0] as { clinic_id: string; revoked_at: Date | null } | undefined;
      if (!found || found.revoked_at) return json(401, { error: 'unauthorized' });
      if (single) {
        const { rows } = await pool.query(ORDER_DETAIL, [found.clinic_id, single[1]]);
        return rows[0] ? json(200, { data: rows[0].order }) : json(404, { error: 'not found' });
      }
      const limit = Number(url.searchParams.get('limit') ?? 25);
      const { rows } = await pool.query(ORDERS_PAGE, [found.clinic_id, 0, found.clinic_id, limit, 0, found.clinic_id]);
      const total = Number(rows[0].total);
      return json(200, { data: rows[0].items, pagination: { page: 1, limit, total, totalPages: Math.ceil(total / limit) } });
    } finally {
      ctx.waitUntil(pool.end());
    }
  },
};
