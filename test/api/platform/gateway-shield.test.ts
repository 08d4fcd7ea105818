// The limits shield the database: what can be refused without a lookup is, and request logs are
// written in batches. Statements are counted through the test database's query log.
import { eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { apiKeys, requestLogs } from '../../../drizzle/schema';
import { generateApiKey, hashApiKey } from '../../../src/platform/auth/api-key-format';
import { IP_MINUTE } from '../../../src/platform/rate-limit/policy';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';
import { countStatements, statementsOf } from '../../helpers/statements';

const t = useTestApp();
beforeEach(() => t.clock.freezeAtWindowStart(60));

/** Every statement the request and its background work sent, by kind. */
async function statements(send: () => Promise<{ status: number }>, expectedStatus: number) {
  const { status, all } = await statementsOf(t, send);
  expect(status).toBe(expectedStatus);
  return {
    all,
    lookups: all.filter((q) => q.includes('from "api_keys"')).length,
    logWrites: all.filter((q) => q.includes('insert into "request_logs"')).length,
  };
}

describe('keys are checked before the database', () => {
  it('a made-up or mistyped key costs no statement at all', async () => {
    const { key } = await makeTenant(t.db);
    const mistyped = key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
    for (const raw of [mistyped, `svc_live_${'x'.repeat(49)}`, 'svc_live_guess', 'hello']) {
      expect((await statements(() => t.request('/api/v1/me', { key: raw }), 401)).all).toEqual([]);
    }
  });

  it('a valid key costs its lookup and one log write, then (cached) only the log write; a key over its limit the same, nothing more', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const valid = await statements(() => t.request('/api/v1/me', { key }), 200);
    expect(valid).toMatchObject({ lookups: 1, logWrites: 1 });
    expect(valid.all).toHaveLength(2);
    const warm = await statements(() => t.request('/api/v1/me', { key }), 200);
    expect(warm).toMatchObject({ lookups: 0, logWrites: 1 });
    expect(warm.all).toHaveLength(1);

    const limited = await makeKey(t.db, clinic.id, { rateLimitPerMin: 1 });
    await t.request('/api/v1/me', { key: limited.raw });
    const refused = await statements(() => t.request('/api/v1/me', { key: limited.raw }), 429);
    expect(refused).toMatchObject({ lookups: 0, logWrites: 1 });
    expect(refused.all).toHaveLength(1);
  });

  it('a key without a checksum (type prefix and 43 characters) costs no statement and answers as a bad checksum does', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const badChecksum = key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
    // Even a checksum-less key whose hash is stored (none was ever issued) is never looked up.
    const stored = `svc_live_${'L'.repeat(30)}${crypto.randomUUID().replace(/-/g, '').slice(0, 13)}`;
    await makeKey(t.db, clinic.id).then(({ row }) =>
      hashApiKey(stored).then((keyHash) => t.db.update(apiKeys).set({ keyHash }).where(eq(apiKeys.id, row.id))),
    );
    const answer = async (raw: string, ip: string) => {
      const { status, count } = await countStatements(t, () => t.request('/api/v1/me', { key: raw, headers: { 'cf-connecting-ip': ip } }));
      const res = await t.request('/api/v1/me', { key: raw, headers: { 'cf-connecting-ip': ip } });
      const headers: Record<string, string> = {};
      res.headers.forEach((value, name) => {
        if (name !== 'x-request-id') headers[name] = value;
      });
      return { status, count, second: { status: res.status, body: await res.json(), headers } };
    };
    const refused = await answer(badChecksum, '192.0.2.60');
    expect(refused.status).toBe(401);
    expect(refused.count).toBe(0);
    for (const [i, raw] of [stored, `svc_live_${'A'.repeat(43)}`, `svc_test_${'z'.repeat(43)}`, key.slice(0, -6)].entries()) {
      expect(await answer(raw, `192.0.2.${61 + i}`), raw).toEqual(refused);
    }
  });
});

describe('an address over its limit of failed key attempts', () => {
  it('is refused with 429 before any lookup, valid key or not; another address is not', async () => {
    const { key } = await makeTenant(t.db);
    const from = (ip: string) => ({ 'cf-connecting-ip': ip });
    // Lookups that fail: well-formed keys that exist nowhere.
    const { raw: unknown } = await generateApiKey('secret', false);
    for (let i = 0; i < IP_MINUTE.limit; i++) {
      const res = await t.request('/api/v1/me', { key: i % 2 ? unknown : 'svc_live_guess', headers: from('192.0.2.80') });
      expect(res.status).toBe(401);
    }
    for (const raw of [key, unknown, 'svc_live_guess']) {
      const refused = await statements(() => t.request('/api/v1/me', { key: raw, headers: from('192.0.2.80') }), 429);
      expect(refused.all).toEqual([]);
    }
    expect((await t.request('/api/v1/me', { key, headers: from('192.0.2.81') })).status).toBe(200);
  });

  it("is not how valid keys are limited: one address keeps a key's full rate", async () => {
    const { key } = await makeTenant(t.db);
    const headers = { 'cf-connecting-ip': '192.0.2.90' };
    // More requests from one address than its limit, within the key's own minute and burst limits.
    for (let i = 0; i < IP_MINUTE.limit + 20; i++) {
      const res = await t.request('/api/v1/me', { key, headers });
      expect(res.status, `request ${i}`).toBe(200);
      t.clock.advance(200);
    }
    expect((await t.request('/api/v1/me', { key, headers })).headers.get('ratelimit-limit')).not.toBe(String(IP_MINUTE.limit));
  });
});

describe('request logs', () => {
  it('are written in batches: a burst of concurrent requests costs fewer inserts than requests, and loses no row', async () => {
    const { clinic, key } = await makeTenant(t.db);
    await t.flush();
    t.queries.length = 0;
    const responses = await Promise.all(Array.from({ length: 20 }, () => t.request('/api/v1/me', { key })));
    expect(responses.every((res) => res.status === 200)).toBe(true);
    await t.flush();
    const inserts = t.queries.filter((q) => q.includes('insert into "request_logs"')).length;
    expect(inserts).toBeGreaterThanOrEqual(1);
    expect(inserts).toBeLessThan(20);
    const rows = await t.db.select({ requestId: requestLogs.requestId }).from(requestLogs).where(eq(requestLogs.clinicId, clinic.id));
    expect(rows.map((r) => r.requestId).sort()).toEqual(responses.map((res) => res.headers.get('x-request-id')).sort());
  });
});

describe('headers of a failed key attempt', () => {
  it('describe the address limit once, counting the attempt', async () => {
    await makeTenant(t.db);
    const { raw: unknown } = await generateApiKey('secret', false); // well-formed, checksum ok, looked up, not found
    const headers = { 'cf-connecting-ip': '192.0.2.120' };
    const first = await t.request('/api/v1/me', { key: unknown, headers });
    const second = await t.request('/api/v1/me', { key: unknown, headers });
    expect(first.status).toBe(401);
    expect(first.headers.get('ratelimit-policy')).toBe(`${IP_MINUTE.limit};w=60`);
    expect(Number(first.headers.get('ratelimit-remaining')) - Number(second.headers.get('ratelimit-remaining'))).toBe(1);
  });
});
