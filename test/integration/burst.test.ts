// A burst of concurrent requests larger than the database's connection limit, through the app as the
// Worker builds it (workerServices: a connection per request, closed in waitUntil). The limit is made
// deliberately small with a role whose CONNECTION LIMIT is 4, so PostgreSQL answers "too many
// connections for role" (SQLSTATE 53300) exactly as a full server answers "too many clients".
// No answer may be a 5xx other than the documented 503 SERVICE_UNAVAILABLE with Retry-After; with the
// connection gate below the role's limit, every request waits its turn and succeeds.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/app';
import { DEVELOPMENT_JWT_SECRET, type Env } from '../../src/config';
import { workerServices } from '../../src/platform/services';
import { createTestDatabase } from '../helpers/database';
import { makeKey, makeTenant } from '../helpers/factories';

const ROLE_CONNECTION_LIMIT = 4;
const BURST = 40;

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let role: string;
let limitedUrl: string;

beforeAll(async () => {
  database = await createTestDatabase();
  role = `burst_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const name = new URL(database.url).pathname.slice(1);
  await database.pool.query(`create role ${role} login password 'burst' connection limit ${ROLE_CONNECTION_LIMIT}`);
  await database.pool.query(`grant connect on database ${name} to ${role}`);
  await database.pool.query(`grant usage on schema public to ${role}`);
  await database.pool.query(`grant select, insert, update, delete on all tables in schema public to ${role}`);
  await database.pool.query(`grant usage, select on all sequences in schema public to ${role}`);
  const url = new URL(database.url);
  url.username = role;
  url.password = 'burst';
  limitedUrl = url.toString();
});

afterAll(async () => {
  await database?.close();
  if (database) {
    const { withClient } = await import('../../scripts/lib/database');
    const { inject } = await import('vitest');
    await withClient(inject('testDatabase').serverUrl, (client) => client.query(`drop role if exists ${role}`));
  }
});

/** Fires `count` concurrent GET /api/v1/me at an app on the limited role; returns every response. */
async function burst(maxConnections: number, key: string, count = BURST) {
  const env: Env = {
    ENVIRONMENT: 'test',
    DATABASE_URL: limitedUrl,
    DATABASE_MAX_CONNECTIONS: String(maxConnections),
    JWT_SECRET: DEVELOPMENT_JWT_SECRET,
  };
  const app = createApp(workerServices);
  const waitUntil: Promise<unknown>[] = [];
  const ctx = { waitUntil: (p: Promise<unknown>) => void waitUntil.push(p), passThroughOnException() {}, props: {} };
  const responses = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      app.request('/api/v1/me', { headers: { 'x-api-key': key, 'cf-connecting-ip': `198.51.100.${i % 250}` } }, env, ctx as never),
    ),
  );
  await Promise.all(waitUntil); // the request logs, then every connection closed
  const bodies = await Promise.all(responses.map((res) => res.json() as Promise<{ code?: string }>));
  return responses.map((res, i) => ({ status: res.status, code: bodies[i]!.code, headers: res.headers }));
}

const countBy = (statuses: number[]) => {
  const counts: Record<number, number> = {};
  for (const s of statuses) counts[s] = (counts[s] ?? 0) + 1;
  return counts;
};

describe(`a burst of ${BURST} requests against a database that allows ${ROLE_CONNECTION_LIMIT} connections`, () => {
  it('without a connection cap below the limit: only 200 and the documented 503, never a 500', async () => {
    const { key } = await makeTenant(database.db);
    const warnings = vi.spyOn(console, 'warn').mockImplementation(() => {}); // one "database unavailable" line per 503
    const results = await burst(1000, key);
    expect(warnings.mock.calls.every(([line]) => String(line).includes('"code":"53300"'))).toBe(true);
    warnings.mockRestore();
    const counts = countBy(results.map((r) => r.status));
    console.log(`burst, gate 1000: ${JSON.stringify(counts)}`);
    expect(
      Object.keys(counts)
        .map(Number)
        .every((s) => s === 200 || s === 503),
      JSON.stringify(counts),
    ).toBe(true);
    const refused = results.filter((r) => r.status === 503);
    expect(refused.length, 'the role limit was reached').toBeGreaterThan(0);
    for (const r of refused) {
      expect(r.code).toBe('SERVICE_UNAVAILABLE');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(r.headers.get('ratelimit-limit')).toMatch(/^\d+$/);
    }
  });

  it('with the connection gate below the limit: every request waits its turn and answers 200', async () => {
    const { clinic } = await makeTenant(database.db);
    const { raw } = await makeKey(database.db, clinic.id);
    const results = await burst(ROLE_CONNECTION_LIMIT - 1, raw);
    const counts = countBy(results.map((r) => r.status));
    console.log(`burst, gate ${ROLE_CONNECTION_LIMIT - 1}: ${JSON.stringify(counts)}`);
    expect(counts).toEqual({ 200: BURST });
  });
});
