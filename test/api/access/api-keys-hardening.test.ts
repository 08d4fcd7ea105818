// Key management: responses carry the metadata fields only, secrets are not cached, and concurrent
// revocations keep the first revokedAt.
import { eq } from 'drizzle-orm';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { apiKeys } from '../../../drizzle/schema';
import { buildTestApp, TestClock, useTestApp } from '../../helpers/app';
import { makeClinic, makeUser, TEST_PASSWORD } from '../../helpers/factories';
import { waitForLockWaiters } from '../../helpers/lock-waits';

const t = useTestApp();

const METADATA_FIELDS = [
  'createdAt',
  'expiresAt',
  'id',
  'isSandbox',
  'keyPrefix',
  'kind',
  'lastUsedAt',
  'name',
  'rateLimitPerMin',
  'revokedAt',
  'rolledToKeyId',
  'scopes',
];

async function admin() {
  const clinic = await makeClinic(t.db);
  const user = await makeUser(t.db, clinic.id, { role: 'owner' });
  const res = await t.request('/auth/signin', { body: { email: user.email, password: TEST_PASSWORD } });
  return { clinic, user, res, token: (await res.json()).data.token as string };
}

describe('responses are built from an explicit field list', () => {
  it('POST /api-keys answers the metadata and the raw key, DELETE the metadata: no hash, no user, no clinic', async () => {
    const { token } = await admin();
    const created = await t.request('/api-keys', { token, body: { name: 'fields' } });
    expect(created.status).toBe(201);
    const { data } = await created.json();
    expect(Object.keys(data).sort()).toEqual([...METADATA_FIELDS, 'apiKey'].sort());
    const revoked = await t.request(`/api-keys/${data.id}`, { token, method: 'DELETE' });
    const body = await revoked.json();
    expect(Object.keys(body.data).sort()).toEqual(METADATA_FIELDS);
    const again = await (await t.request(`/api-keys/${data.id}`, { token, method: 'DELETE' })).json();
    expect(Object.keys(again.data).sort()).toEqual(METADATA_FIELDS);
    const [row] = await t.db.select().from(apiKeys).where(eq(apiKeys.id, data.id));
    for (const text of [JSON.stringify(data), JSON.stringify(body), JSON.stringify(again)]) {
      expect(text).not.toContain(row!.keyHash);
      expect(text).not.toContain(row!.createdByUserId!);
      expect(text).not.toContain(row!.clinicId);
    }
  });
});

describe('responses that carry a secret are not cached', () => {
  it('POST /auth/signin (the token) and POST /api-keys (the raw key) send Cache-Control: no-store and Pragma: no-cache', async () => {
    const { res, token } = await admin();
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
    const created = await t.request('/api-keys', { token, body: { name: 'nostore' } });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(created.headers.get('pragma')).toBe('no-cache');
    // Metadata only: no secret, no need.
    expect((await t.request('/api-keys', { token })).headers.get('cache-control')).toBeNull();
  });

  it('declares the headers in the OpenAPI document', async () => {
    const document = await (await t.request('/api/v1/openapi.json')).json();
    for (const [path, status] of [
      ['/auth/signin', '200'],
      ['/api-keys', '201'],
    ] as const) {
      const headers = document.paths[path].post.responses[status].headers;
      expect(headers['Cache-Control'].schema.enum, path).toEqual(['no-store']);
      expect(headers.Pragma.schema.enum, path).toEqual(['no-cache']);
    }
  });
});

describe('revoking is idempotent and keeps the first revokedAt', () => {
  it('a later revocation (a later clock) leaves revokedAt where it was', async () => {
    const { token } = await admin();
    const { data: key } = await (await t.request('/api-keys', { token, body: { name: 'twice' } })).json();
    t.clock.freezeAt(Date.parse('2031-01-01T00:00:00Z'));
    const first = (await (await t.request(`/api-keys/${key.id}`, { token, method: 'DELETE' })).json()).data;
    expect(first.revokedAt).toBe('2031-01-01T00:00:00.000Z');
    t.clock.advance(3_600_000);
    const second = (await (await t.request(`/api-keys/${key.id}`, { token, method: 'DELETE' })).json()).data;
    expect(second.revokedAt).toBe('2031-01-01T00:00:00.000Z');
    const [row] = await t.db.select({ revokedAt: apiKeys.revokedAt }).from(apiKeys).where(eq(apiKeys.id, key.id));
    expect(row!.revokedAt!.toISOString()).toBe('2031-01-01T00:00:00.000Z');
  });

  it('two revocations at once, with different clocks, both answer the one revokedAt that is stored', async () => {
    const { token } = await admin();
    const { data: key } = await (await t.request('/api-keys', { token, body: { name: 'race' } })).json();
    const [early, late] = [new TestClock(), new TestClock()];
    early.freezeAt(Date.parse('2032-01-01T00:00:00Z'));
    late.freezeAt(Date.parse('2032-06-01T00:00:00Z'));
    const apps = [buildTestApp(t.db, t.databaseUrl, { clock: early }), buildTestApp(t.db, t.databaseUrl, { clock: late })];

    // Hold the row so both revocations are in flight together: each has read the key and waits on
    // the lock with its update, whatever it read first.
    const locker = new pg.Client({ connectionString: t.databaseUrl });
    await locker.connect();
    let answers: { revokedAt: string }[];
    try {
      await locker.query('begin');
      await locker.query('select 1 from api_keys where id = $1 for update', [key.id]);
      const pending = apps.map((app) =>
        app.request(`/api-keys/${key.id}`, { token, method: 'DELETE' }).then(async (res) => {
          expect(res.status).toBe(200);
          return (await res.json()).data as { revokedAt: string };
        }),
      );
      await waitForLockWaiters(locker, 2, 'the two revocations');
      await locker.query('commit');
      answers = await Promise.all(pending);
    } finally {
      await locker.query('rollback').catch(() => {});
      await locker.end();
    }
    const [row] = await t.db.select({ revokedAt: apiKeys.revokedAt }).from(apiKeys).where(eq(apiKeys.id, key.id));
    const stored = row!.revokedAt!.toISOString();
    expect(['2032-01-01T00:00:00.000Z', '2032-06-01T00:00:00.000Z']).toContain(stored);
    expect(answers.map((a) => a.revokedAt)).toEqual([stored, stored]);
  });

  it('Promise.all of two revocations on one app: one revokedAt, answered twice', async () => {
    const { token } = await admin();
    const { data: key } = await (await t.request('/api-keys', { token, body: { name: 'pair' } })).json();
    const results = await Promise.all([0, 1].map(() => t.request(`/api-keys/${key.id}`, { token, method: 'DELETE' })));
    const bodies = await Promise.all(results.map((r) => r.json()));
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    expect(bodies[0].data.revokedAt).not.toBeNull();
    expect(bodies[1].data.revokedAt).toBe(bodies[0].data.revokedAt);
  });
});
