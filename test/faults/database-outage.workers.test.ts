// Faults, inside workerd: the database unreachable while the real Worker (src/index.ts, bundled for the
// workers project) answers. database-stops.test.ts runs node-postgres in Node, whose socket errors read
// differently from workerd's (cloudflare:sockets through pg-cloudflare): the review found workerd's
// "proxy request failed, cannot connect to the specified address" answered 500, never seen in Node.
//
// Every operation of the route table is called with a sampled request (path ids, required query, JSON
// body, the credentials its access rule needs; key-authenticated writes carry an Idempotency-Key, the
// same in every phase, so each phase is a retry of the same request) on a clinic whose key is in the
// isolate's key cache, so that the operation's own statements run, not only the key lookup. The Worker
// is handed, per request, a DATABASE_URL that picks the fault (pg-outage-proxy.ts, started by
// test/workers/global-setup.ts), the way `npm run dev` reaches the database (DATABASE_BYPASS_HYPERDRIVE:
// the local Hyperdrive binding is a proxy inside the host process that dies on a refused or reset
// socket, README):
//   (a) stopped: nothing listens on the port, every operation; and, as production Hyperdrive reports an
//       origin it cannot reach, the startup refused with SQLSTATE 58000, every third;
//   (b) killed mid-request: the connection reset as the operation sends its first statement, every
//       operation; at its second, every write; the backend terminated (FATAL 57P01), every third;
//   (c) hanging: a server that accepts and never answers the startup, every operation; one that stops
//       answering at the first statement, every third (each waits the answer timeout).
// Where the fault reached the operation the answer is the enveloped 503 SERVICE_UNAVAILABLE with
// Retry-After (or, when the Worker got past it on a new connection, the answer it gives anyway);
// everywhere else, that 503 or what the operation answers without the database, never another 5xx
// (but a 503 the operation declares for itself). Every request's background work (closing its
// database) finishes. After the outage, the same requests again (the same Idempotency-Key) run: no 5xx,
// no key left "still being processed".
import { env } from 'cloudflare:workers';
import { Pool as NeonPool, neonConfig } from '@neondatabase/serverless';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/neon-serverless';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { createApp, routeTable } from '../../src/app';
import worker from '../../src/index';
import { issueToken } from '../../src/platform/auth/jwt';
import { type DatabaseHandle, openDatabase } from '../../src/platform/db/client';
import { classifyDatabaseError, DATABASE_RETRY_AFTER_SECONDS } from '../../src/platform/db/errors';
import { type GuardedPool, guardPool } from '../../src/platform/db/pool-guard';
import { makeTenant } from '../helpers/factories';
import { sample } from '../helpers/openapi-inputs';
import { documentOf, resolveSchema } from '../helpers/strict-response';
import { type OutageFault, outageApplicationName, type TagStats } from './pg-outage-proxy';

const proxy = inject('outageProxy');
const DECLARED = createApp(async () => {
  throw new Error('declarations only');
});
const DOCUMENT = documentOf(DECLARED);
const ROUTES = routeTable(DECLARED).map((route, index) => ({ ...route, index, name: `${route.method} ${route.path}` }));
type Route = (typeof ROUTES)[number];

/** The Worker's variables for one request: the database through the proxy with one fault (or none). */
function workerEnv(databaseUrl: string): Cloudflare.Env {
  return {
    ...env,
    DATABASE_URL: databaseUrl,
    DATABASE_BYPASS_HYPERDRIVE: 'true',
    // One gate for the whole file (a new size would replace the isolate's gate), large enough that the
    // hanging phases wait on the database rather than on the gate.
    DATABASE_MAX_CONNECTIONS: '400',
    // One key calls every operation in every phase: the limits are not what is tested here.
    RATE_LIMIT_MULTIPLIER: '1000',
  };
}

const urlFor = (fault: OutageFault, at: number, tag: string) => {
  const url = new URL(proxy.url);
  url.searchParams.set('application_name', outageApplicationName(fault, at, tag));
  return url.toString();
};

interface Credentials {
  key: string;
  token: string;
}

interface Planned {
  route: Route;
  path: string;
  init: { method: string; headers: Record<string, string>; body?: string };
}

/** One request per operation, the same in every phase (an Idempotency-Key retry must be byte for byte the same request). */
function plan(route: Route, credentials: Credentials): Planned {
  const operation = ((DOCUMENT.paths?.[route.path] as Record<string, unknown>)?.[route.method.toLowerCase()] ?? {}) as {
    parameters?: { in: string; name: string; required?: boolean; schema?: Record<string, unknown> }[];
    requestBody?: { content?: Record<string, { schema?: Record<string, unknown> }> };
  };
  const parameters = operation.parameters ?? [];
  const pathValue = (schema: Record<string, unknown> | undefined) => {
    const resolved = schema ? resolveSchema(DOCUMENT, schema) : {};
    return Array.isArray(resolved.enum) || resolved.format ? String(sample(DOCUMENT, resolved)) : crypto.randomUUID();
  };
  let path = route.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
    encodeURIComponent(pathValue(parameters.find((p) => p.in === 'path' && p.name === name)?.schema)),
  );
  const query = parameters.filter((p) => p.in === 'query' && p.required);
  if (query.length) path += `?${query.map((p) => `${p.name}=${encodeURIComponent(String(sample(DOCUMENT, p.schema ?? {})))}`).join('&')}`;
  const headers: Record<string, string> = {};
  if (route.access.auth === 'key') headers['x-api-key'] = credentials.key;
  if (route.access.auth === 'jwt') headers.authorization = `Bearer ${credentials.token}`;
  const schema = operation.requestBody?.content?.['application/json']?.schema;
  const init: Planned['init'] = { method: route.method, headers };
  if (schema) {
    init.body = JSON.stringify(sample(DOCUMENT, schema));
    headers['content-type'] = 'application/json';
  }
  if (route.access.auth === 'key' && route.method !== 'GET') headers['idempotency-key'] = `outage-${route.index}`;
  return { route, path, init };
}

interface Answer {
  status: number;
  retryAfter: string | null;
  body: string;
  /** Whether the work the request left in waitUntil (closing its database) finished in time. */
  settled: boolean;
  ms: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** One request to the Worker's fetch handler with its own ExecutionContext, whose waitUntil work is kept. */
async function send(planned: Planned, databaseUrl: string, limitMs = 30_000): Promise<Answer> {
  const started = Date.now();
  const waiting: Promise<unknown>[] = [];
  const ctx = { waitUntil: (work: Promise<unknown>) => waiting.push(work), passThroughOnException() {}, props: {} };
  const request = new Request(`http://brand-admin.test${planned.path}`, planned.init);
  const answered = (async () => {
    const res = await worker.fetch(
      request as Request<unknown, IncomingRequestCfProperties>,
      workerEnv(databaseUrl),
      ctx as unknown as ExecutionContext,
    );
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.text() };
  })();
  const res = await Promise.race([answered, sleep(limitMs).then(() => null)]);
  if (!res) return { status: 0, retryAfter: null, body: `no answer in ${limitMs} ms`, settled: false, ms: Date.now() - started };
  const settled = await Promise.race([Promise.allSettled(waiting).then(() => true), sleep(limitMs).then(() => false)]);
  return { ...res, settled, ms: Date.now() - started };
}

/** Runs `work` over `items`, at most `width` at a time. */
async function pooled<T, R>(items: T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await work(items[i]!);
      }
    }),
  );
  return results;
}

async function proxyStats(): Promise<Record<string, TagStats>> {
  const res = await fetch(`${proxy.controlUrl}/stats`);
  return (await res.json()) as Record<string, TagStats>;
}

let handle: DatabaseHandle;
let requests: Planned[];
const healthyUrl = () => urlFor('pass', 0, `warm-${crypto.randomUUID().slice(0, 8)}`);
/** The start of the gateway's key lookup, as the proxy records statements (first 100 characters). */
const KEY_LOOKUP_START = 'select "api_keys"."id", "api_keys"."clinic_id"';
/** Operations that reached the database (their first statement was cut in phase (b)), by route index. */
const reachesDatabase = new Map<number, boolean>();
const figures: Record<string, Record<string, number>> = {};

beforeAll(async () => {
  // Every fault logs a warning (database unavailable) or an error (the request log lost its rows): expected here.
  vi.spyOn(console, 'warn').mockImplementation(() => {});
  vi.spyOn(console, 'error').mockImplementation(() => {});
  handle = await openDatabase({ url: env.DATABASE_URL!, driver: 'pg' });
  const { clinic, owner, key } = await makeTenant(handle.db, { entitlements: ['affiliates', 'crm_connect'] });
  const { token } = await issueToken({ userId: owner.id, clinicId: clinic.id, role: 'owner' }, env.JWT_SECRET!, new Date());
  requests = ROUTES.map((route) => plan(route, { key, token }));
}, 60_000);
afterAll(async () => {
  vi.restoreAllMocks();
  await handle?.close();
  console.log(JSON.stringify({ databaseOutageInWorkerd: { operations: ROUTES.length, ...figures } }));
});

/** The key in this isolate's key cache (30 s), so the operations' own statements run rather than only the key lookup. */
async function warmKeyCache() {
  const me = requests.find((r) => r.route.name === 'GET /api/v1/me')!;
  const answer = await send(me, healthyUrl());
  expect(answer.status, answer.body).toBe(200);
}

const isServiceUnavailable = (answer: Answer) => {
  if (answer.status !== 503) return false;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(answer.body) as Record<string, unknown>;
  } catch {
    return false; // a 503 outside the envelope (the runtime's own)
  }
  return (
    answer.retryAfter === String(DATABASE_RETRY_AFTER_SECONDS) &&
    body.success === false &&
    body.code === 'SERVICE_UNAVAILABLE' &&
    typeof body.message === 'string' &&
    body.retryAfterSeconds === DATABASE_RETRY_AFTER_SECONDS
  );
};

interface Phase {
  name: string;
  /** Its tag prefix in the proxy's statistics. */
  id: string;
  /** The fault, at the operation's at-th statement; 'closed': the URL of a port where nothing listens. */
  fault: OutageFault | 'closed';
  at?: number;
  /**
   * Whether the fault reaches an operation: 'cut', the proxy applied it to the operation's connection;
   * 'database', the operation reached the database in the first phase (the fault is at the connect).
   */
  reached: 'cut' | 'database';
  /** Requests under way at once. */
  width: number;
  /** The operations called (default: all). */
  only?: (planned: Planned) => boolean;
}

const tag = (phase: Pick<Phase, 'id'>, planned: Planned) => `${phase.id}-${planned.route.index}`;
const everyThird = (planned: Planned) => planned.route.index % 3 === 0;
const writes = (planned: Planned) => planned.route.method !== 'GET';

/** A 503 the operation declares for itself (the copilot without a model), not the database's. */
function declaredUnavailable(planned: Planned, answer: Answer): boolean {
  const operation = (DOCUMENT.paths?.[planned.route.path] as Record<string, { responses?: Record<string, unknown> }>)?.[
    planned.route.method.toLowerCase()
  ];
  return answer.status === 503 && !!operation?.responses?.['503'] && !answer.body.includes('"SERVICE_UNAVAILABLE"');
}

/**
 * Calls the operations with the phase's fault and checks each answer: the enveloped 503 where the fault
 * reached the operation, unless the Worker got past it on a new connection (the Idempotency-Key's
 * bookkeeping is tried once more); elsewhere that 503 or a non-5xx answer; and the request's background
 * work done.
 */
async function runPhase(phase: Phase): Promise<string[]> {
  await warmKeyCache();
  const chosen = requests.filter(phase.only ?? (() => true));
  const url = (planned: Planned) => (phase.fault === 'closed' ? proxy.closedUrl : urlFor(phase.fault, phase.at ?? 0, tag(phase, planned)));
  const answers = await pooled(chosen, phase.width, (planned) => send(planned, url(planned)));
  const stats = await proxyStats();
  const counts: Record<string, number> = {};
  const problems: string[] = [];
  answers.forEach((answer, i) => {
    const planned = chosen[i]!;
    const seen = stats[tag(phase, planned)];
    counts[answer.status] = (counts[answer.status] ?? 0) + 1;
    const where = `${phase.name}: ${planned.route.name} (${planned.path}) → ${answer.status} ${answer.body.slice(0, 200)}`;
    if (!answer.settled) problems.push(`${where}: its background work (closing its database) did not finish`);
    if (isServiceUnavailable(answer)) return;
    const reached = phase.reached === 'cut' ? !!seen?.cut : reachesDatabase.get(planned.route.index) === true;
    const reconnected = (seen?.connections ?? 0) > 1;
    if (reached && !reconnected) problems.push(`${where}: the fault reached it; expected the enveloped 503 with Retry-After`);
    else if ((answer.status >= 500 && !declaredUnavailable(planned, answer)) || answer.status === 0) problems.push(`${where}: a 5xx`);
  });
  figures[phase.name] = {
    ...counts,
    ...(phase.reached === 'cut'
      ? { faultReached: Object.keys(stats).filter((t) => t.startsWith(`${phase.id}-`) && stats[t]!.cut).length }
      : {}),
  };
  return problems;
}

const expectNone = (problems: string[]) => expect(problems, problems.join('\n')).toEqual([]);

describe('every operation of the route table, in workerd, with the database unreachable', () => {
  /** The hanging phases wait on timeouts, not on the CPU: they run while the others do. */
  let hanging: { connect: Promise<string[]>; statement: Promise<string[]> };

  it('(b) the connection reset as the operation sends its first statement: 503', { timeout: 180_000 }, async () => {
    const phase: Phase = { name: 'reset at statement 1', id: 'r1', fault: 'reset', at: 1, reached: 'cut', width: 16 };
    expectNone(await runPhase(phase));
    const stats = await proxyStats();
    // Reached with its own first statement: one cut at the key's lookup says nothing about the operation
    // (the key fell out of the cache, or a marker a write of this phase set sent it back to the lookup;
    // this phase outlasts the cache's 30 s on a busy machine), and it may need no database at all.
    for (const planned of requests) {
      const seen = stats[tag(phase, planned)];
      reachesDatabase.set(planned.route.index, !!seen?.cut && !seen.statements[0]?.startsWith(KEY_LOOKUP_START));
    }
    const reaching = [...reachesDatabase.values()].filter(Boolean).length;
    expect(reaching, 'operations that reached the database with the key cached').toBeGreaterThan(ROUTES.length * 0.9);
    hanging = {
      // Each waits CONNECT_TIMEOUT_MS (5 s); the proxy opens nothing behind them.
      connect: runPhase({ name: 'hanging at connect', id: 'hc', fault: 'hang-connect', reached: 'database', width: 240 }),
      // Each waits QUERY_ANSWER_TIMEOUT_MS (10 s).
      statement: runPhase({ name: 'hanging at statement 1', id: 'h1', fault: 'hang', at: 1, reached: 'cut', width: 80, only: everyThird }),
    };
    for (const phase of Object.values(hanging)) phase.catch(() => {});
  });

  it('(a) nothing listening on the database’s port: 503', { timeout: 180_000 }, async () => {
    expectNone(await runPhase({ name: 'refused', id: 'rf', fault: 'closed', reached: 'database', width: 16 }));
  });

  it('(a) Hyperdrive cannot reach the database (58000 at the startup): 503', { timeout: 180_000 }, async () => {
    expectNone(
      await runPhase({ name: 'Hyperdrive refused', id: 'hd', fault: 'hyperdrive', reached: 'database', width: 16, only: everyThird }),
    );
  });

  it('(b) the connection reset as a write sends its second statement: 503, or its answer when it got past', {
    timeout: 180_000,
  }, async () => {
    expectNone(await runPhase({ name: 'reset at statement 2', id: 'r2', fault: 'reset', at: 2, reached: 'cut', width: 16, only: writes }));
  });

  it('(b) the backend terminated (FATAL 57P01) at the operation’s first statement: 503', { timeout: 180_000 }, async () => {
    expectNone(
      await runPhase({
        name: 'terminated at statement 1',
        id: 't1',
        fault: 'terminate',
        at: 1,
        reached: 'cut',
        width: 16,
        only: everyThird,
      }),
    );
  });

  it('(c) a server that accepts and never answers the startup: 503 after the connect timeout', { timeout: 180_000 }, async () => {
    expectNone(await hanging.connect);
  });

  it('(c) a server that stops answering at the operation’s first statement: 503 after the answer timeout', {
    timeout: 180_000,
  }, async () => {
    expectNone(await hanging.statement);
  });

  it('after the outage, the same writes (same Idempotency-Key) run: no 5xx, no key left "still being processed"', {
    timeout: 180_000,
  }, async () => {
    await warmKeyCache();
    const chosen = requests.filter(writes);
    const answers = await pooled(chosen, 16, (planned) => send(planned, urlFor('pass', 0, tag({ id: 'after' }, planned))));
    const counts: Record<string, number> = {};
    const problems: string[] = [];
    answers.forEach((answer, i) => {
      const planned = chosen[i]!;
      counts[answer.status] = (counts[answer.status] ?? 0) + 1;
      const where = `after: ${planned.route.name} (${planned.path}) → ${answer.status} ${answer.body.slice(0, 200)}`;
      if ((answer.status >= 500 && !declaredUnavailable(planned, answer)) || answer.status === 0) problems.push(where);
      if (answer.body.includes('"IDEMPOTENCY_KEY_IN_USE"')) problems.push(`${where}: the outage left the key claimed`);
      if (!answer.settled) problems.push(`${where}: its background work (closing its database) did not finish`);
    });
    figures['after the outage'] = counts;
    expectNone(problems);
  });
});

describe('the Neon serverless driver in workerd (a WebSocket to the database)', () => {
  // The workers project bundles with wrangler.toml's [define] (__DATABASE_DRIVER__ "pg"), so openDatabase
  // carries node-postgres only here: the Neon build's pool is made as openDatabase makes it.
  async function neonFailure(url: string, wsProxy: string, answerTimeoutMs?: number) {
    Object.assign(neonConfig, { wsProxy, useSecureWebSocket: false, forceDisablePgSSL: true, pipelineConnect: false, pipelineTLS: false });
    const pool = new NeonPool({ connectionString: url, max: 1, connectionTimeoutMillis: 5_000 });
    const { close } = guardPool(pool as unknown as GuardedPool, { answerTimeoutMs });
    let error: unknown = null;
    try {
      await drizzle({ client: pool }).transaction(async (tx) => tx.execute(sql`select 1`));
    } catch (caught) {
      error = caught;
    }
    const closed = await Promise.race([close().then(() => true), sleep(5_000).then(() => false)]);
    return { error, closed };
  }

  it('no proxy answering, the database stopped, the connection reset or silent at the first statement: unavailable; the pool closes', {
    timeout: 60_000,
  }, async () => {
    const closedPort = new URL(proxy.closedUrl).port;
    const cases = {
      'no WebSocket proxy': await neonFailure(env.DATABASE_URL!, `127.0.0.1:${closedPort}/v1`),
      'the database stopped': await neonFailure(proxy.closedUrl, proxy.neonWsProxy),
      'reset at the first statement': await neonFailure(urlFor('reset', 1, 'neon-r1'), proxy.neonWsProxy),
      'silent at the first statement': await neonFailure(urlFor('hang', 1, 'neon-h1'), proxy.neonWsProxy, 500),
    };
    for (const [name, { error, closed }] of Object.entries(cases)) {
      expect(error, name).not.toBeNull();
      expect(classifyDatabaseError(error), name).toBe('unavailable');
      expect(closed, `${name}: the pool closed`).toBe(true);
    }
    const healthy = await neonFailure(env.DATABASE_URL!, proxy.neonWsProxy);
    expect(healthy.error, 'the same pool on the database itself').toBeNull();
  });
});
