// npx tsx scripts/bench/webhook-drain.ts [--n 10000] [--latency 20] [--dispatchers 1] [--pool 20] [--neighbours 20]
//
// How fast a large recover drains (issue 28, item 3): a fresh database on the local PostgreSQL
// (DATABASE_SERVER_URL, default postgres://postgres@127.0.0.1:5432/postgres; loopback only), migrated;
// one clinic with one endpoint pointing at a receiver on 127.0.0.1 that answers 200 after `latency` ms;
// `n` events of the last day recovered through the service the route calls (recoverDeliveries); then the
// local dispatcher drains (drainLocalDispatcher, as the cron and the development kick run it),
// `dispatchers` of them at once, until nothing is due. Meanwhile another clinic's endpoint gets
// `neighbours` fresh events, one every 100 ms: the script reports how long each waited (fairness).
// Reports deliveries per second, POSTs received, distinct idempotency keys (duplicates = POSTs - keys).
// The database is dropped at the end.

import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { clinics, outboxEvents, webhookEndpoints } from '../../drizzle/schema';
import { DEVELOPMENT_WEBHOOK_SECRET_KEY, isLoopbackHost } from '../../src/config';
import { drainLocalDispatcher, insertSigningSecret, recoverDeliveries } from '../../src/modules/webhooks-checkout';
import type { HandlerContext } from '../../src/platform/context';
import { recordOutboxEvent } from '../../src/platform/events/outbox';
import { DevelopmentHostResolver } from '../../src/platform/providers/dns/development';
import { DevelopmentMessageSender } from '../../src/platform/providers/messaging/development';
import { connect, databaseUrl, withClient } from '../lib/database';
import { migrateDatabase } from '../lib/migrations';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const N = arg('n', 10_000);
const LATENCY = arg('latency', 20);
const DISPATCHERS = arg('dispatchers', 1);
const POOL = arg('pool', 20);
const NEIGHBOURS = arg('neighbours', 20);
const server = process.env.DATABASE_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
if (!isLoopbackHost(new URL(server).hostname)) {
  console.error('DATABASE_SERVER_URL must be a server on this machine.');
  process.exit(1);
}

// The receiver: 200 after LATENCY ms; remembers every POST's idempotency key and when it came.
const received: { key: string; endpoint: string; at: number }[] = [];
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () =>
    setTimeout(() => {
      received.push({ key: String(req.headers['x-service-idempotency-key']), endpoint: req.url ?? '', at: Date.now() });
      res.writeHead(200).end('ok');
    }, LATENCY),
  );
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const port = (receiver.address() as { port: number }).port;

const name = `brand_admin_bench_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
await withClient(server, (client) => client.query(`create database ${name}`));
const url = databaseUrl(server, name);
const connection = connect(url, POOL);
try {
  await migrateDatabase(url);
  const db = connection.db;
  const config = { secretKeys: { current: DEVELOPMENT_WEBHOOK_SECRET_KEY }, webhookAllowInsecureLocalhost: true } as never;
  const services = { config, hostResolver: new DevelopmentHostResolver(), messaging: new DevelopmentMessageSender() };

  const clinic = async (slug: string) =>
    (
      await db
        .insert(clinics)
        .values({ name: slug, slug: `${slug}-${randomUUID().slice(0, 8)}` })
        .returning()
    )[0]!;
  const endpointFor = async (clinicId: string, label: string) => {
    const [endpoint] = await db
      .insert(webhookEndpoints)
      .values({
        clinicId,
        url: `http://127.0.0.1:${port}/${label}`,
        events: ['order.created'],
        createdAt: new Date(Date.now() - 2 * 86_400_000),
      })
      .returning();
    await insertSigningSecret(db, clinicId, endpoint!.id, (config as { secretKeys: never }).secretKeys, new Date());
    return endpoint!;
  };
  const big = await clinic('bench-recover');
  const other = await clinic('bench-neighbour');
  const bigEndpoint = await endpointFor(big.id, 'big');
  await endpointFor(other.id, 'neighbour');

  const yesterday = new Date(Date.now() - 86_400_000);
  for (let done = 0; done < N; done += 1_000) {
    const count = Math.min(1_000, N - done);
    await db.insert(outboxEvents).values(
      Array.from({ length: count }, () => ({
        clinicId: big.id,
        eventType: 'order.created',
        payload: { orderId: randomUUID() },
        createdAt: yesterday,
        dispatchedAt: yesterday,
      })),
    );
  }
  const ctx = { db, clinicId: big.id, now: () => new Date() } as unknown as HandlerContext;
  const recoverStarted = performance.now();
  const { queued } = await recoverDeliveries(ctx, bigEndpoint.id, { since: new Date(Date.now() - 2 * 86_400_000).toISOString() });
  const recoverMs = performance.now() - recoverStarted;

  // The neighbour's events, one every 100 ms, while the backlog drains; when each was written.
  const written = new Map<string, number>();
  const neighbours = (async () => {
    for (let i = 0; i < NEIGHBOURS; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const id = await recordOutboxEvent(db, other.id, 'order.created', { orderId: randomUUID() });
      written.set(id, Date.now());
    }
  })();

  const started = performance.now();
  const startedAt = Date.now();
  let drained = 0;
  for (;;) {
    const runs = await Promise.all(
      Array.from({ length: DISPATCHERS }, () => drainLocalDispatcher(db, () => new Date(), services, 600_000)),
    );
    drained += runs.reduce((sum, r) => sum + r.succeeded, 0);
    const bigPosts = received.filter((r) => r.endpoint === '/big').length;
    if (bigPosts >= queued && written.size === NEIGHBOURS) {
      const neighbourDone = received.filter((r) => r.endpoint === '/neighbour').length;
      if (neighbourDone >= NEIGHBOURS) break;
    }
    if (runs.every((r) => r.attempted === 0)) await new Promise((r) => setTimeout(r, 20));
  }
  const seconds = (performance.now() - started) / 1000;
  await neighbours;

  const bigPosts = received.filter((r) => r.endpoint === '/big');
  const bigDone = Math.max(...bigPosts.map((r) => r.at));
  const keys = new Set(bigPosts.map((r) => r.key));
  const waits = received
    .filter((r) => r.endpoint === '/neighbour')
    .map((r) => r.at - (written.get(r.key) ?? r.at))
    .sort((a, b) => a - b);
  const pct = (p: number) => waits[Math.min(waits.length - 1, Math.floor((p / 100) * waits.length))] ?? 0;
  console.log(
    JSON.stringify(
      {
        events: N,
        queued,
        recoverMs: Math.round(recoverMs),
        receiverLatencyMs: LATENCY,
        dispatchers: DISPATCHERS,
        pool: POOL,
        drainSeconds: Number(((bigDone - startedAt) / 1000).toFixed(2)),
        deliveriesPerSecond: Math.round(bigPosts.length / ((bigDone - startedAt) / 1000)),
        postsReceived: bigPosts.length,
        distinctKeys: keys.size,
        duplicates: bigPosts.length - keys.size,
        succeededByDispatcher: drained,
        neighbourWaitMs: { p50: pct(50), p95: pct(95), max: waits.at(-1) ?? 0, count: waits.length },
        totalSeconds: Number(seconds.toFixed(2)),
      },
      null,
      2,
    ),
  );
} finally {
  await connection.close();
  await withClient(server, (client) => client.query(`drop database if exists ${name} with (force)`));
  receiver.close();
}
