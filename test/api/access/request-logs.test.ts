import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { requestLogs } from '../../../drizzle/schema';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant } from '../../helpers/factories';

const t = useTestApp();

const list = async (key: string, query = '') => (await t.request(`/api/v1/request-logs${query}`, { key })).json();

describe('GET /api/v1/request-logs', () => {
  it("lists the clinic's requests newest first with every field, and no body, query string or secret header", async () => {
    const { clinic, key, keyRow } = await makeTenant(t.db);
    await t.request('/api/v1/me', { key, headers: { 'user-agent': 'brand-server/1.0' } });
    const created = await t.request('/api/v1/tags', {
      key,
      body: { name: 'Jane Doe DOB 1980-01-01', color: '#112233' },
      headers: { 'idempotency-key': 'tag-create-1', 'x-request-id': 'client-req-42' },
    });
    expect(created.status).toBe(201);
    const replay = await t.request('/api/v1/tags', {
      key,
      body: { name: 'Jane Doe DOB 1980-01-01', color: '#112233' },
      headers: { 'idempotency-key': 'tag-create-1' },
    });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    await t.request('/api/v1/orders/00000000-0000-4000-8000-000000000000?email=jane@example.com', { key });
    await t.flush();

    const res = await t.request('/api/v1/request-logs', { key, headers: { 'user-agent': 'brand-server/1.0' } });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.pagination).toEqual({ page: 1, limit: 25, total: 4, totalPages: 1 });
    expect(body.data.map((r: { route: string; status: number }) => [r.route, r.status])).toEqual([
      // The query string names a parameter the operation does not take: 400 (docs/api-conventions.md).
      ['/api/v1/orders/{id}', 400],
      ['/api/v1/tags', 201],
      ['/api/v1/tags', 201],
      ['/api/v1/me', 200],
    ]);
    const [notFound, replayed, original, me] = body.data;
    expect(Object.keys(me).sort()).toEqual(
      [
        'apiKeyId',
        'clientIp',
        'clientRequestId',
        'createdAt',
        'durationMs',
        'errorCode',
        'idempotencyKey',
        'idempotentReplayed',
        'keyPrefix',
        'method',
        'path',
        'rateLimitOutcome',
        'rateLimitRemaining',
        'requestId',
        'route',
        'status',
        'userAgent',
      ].sort(),
    );
    expect(me).toMatchObject({
      method: 'GET',
      path: '/api/v1/me',
      errorCode: null,
      apiKeyId: keyRow.id,
      keyPrefix: keyRow.keyPrefix,
      idempotencyKey: null,
      idempotentReplayed: false,
      rateLimitOutcome: 'allowed',
      userAgent: 'brand-server/1.0',
    });
    expect(me.clientIp).toMatch(/\d/);
    expect(me.rateLimitRemaining).toBeGreaterThan(0);
    expect(original).toMatchObject({
      method: 'POST',
      requestId: created.headers.get('x-request-id'),
      clientRequestId: 'client-req-42',
      idempotencyKey: 'tag-create-1',
      idempotentReplayed: false,
    });
    expect(me.clientRequestId).toBeNull();
    expect(replayed).toMatchObject({ idempotencyKey: 'tag-create-1', idempotentReplayed: true });
    expect(notFound).toMatchObject({ errorCode: 'VALIDATION_ERROR', path: '/api/v1/orders/00000000-0000-4000-8000-000000000000' });
    // Nothing of a body or a query string, nor the key itself, is stored.
    const stored = JSON.stringify(await t.db.select().from(requestLogs).where(eq(requestLogs.clinicId, clinic.id)));
    for (const secret of ['Jane', '1980', 'jane@example.com', 'email=', key]) expect(stored).not.toContain(secret);
  });

  it('filters by status code or class, method, route, apiKeyId and time, and pages', async () => {
    const { clinic, key, keyRow } = await makeTenant(t.db);
    const other = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    await t.request('/api/v1/me', { key });
    await t.request('/api/v1/me', { key: other.raw });
    await t.request('/api/v1/tags', { key: other.raw, body: { name: 'x', color: '#123' } });
    await t.request('/api/v1/orders/unknown', { key });
    await t.flush();
    const routes = (page: { data: { route: string; status: number }[] }) => page.data.map((r) => `${r.route} ${r.status}`);
    expect(routes(await list(key, '?status=4xx'))).toEqual(['/api/v1/orders/{id} 404', '/api/v1/tags 403']);
    expect(routes(await list(key, '?status=403'))).toEqual(['/api/v1/tags 403']);
    expect(routes(await list(key, '?method=POST'))).toEqual(['/api/v1/tags 403']);
    expect(routes(await list(key, `?route=${encodeURIComponent('/api/v1/me')}&status=2XX`))).toEqual(['/api/v1/me 200', '/api/v1/me 200']);
    expect(routes(await list(key, `?apiKeyId=${other.row.id}`))).toEqual(['/api/v1/tags 403', '/api/v1/me 200']);
    expect((await list(key, `?apiKeyId=${keyRow.id}&route=${encodeURIComponent('/api/v1/me')}`)).data).toHaveLength(1);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await list(key, `?createdGte=${future}`)).data).toEqual([]);
    expect((await list(key, `?createdLte=${future}&route=${encodeURIComponent('/api/v1/me')}`)).data).toHaveLength(2);
    await t.flush(); // the seven list requests above are logged too
    const second = await list(key, '?limit=2&page=2&route=%2Fapi%2Fv1%2Frequest-logs');
    expect(second.pagination.total).toBeGreaterThanOrEqual(7);
    expect(second.data).toHaveLength(2);
  });

  it('records a rate-limit refusal as limited, with its code and RateLimit-Remaining 0', async () => {
    const { clinic, key } = await makeTenant(t.db);
    const limited = await makeKey(t.db, clinic.id, { rateLimitPerMin: 1 });
    t.clock.freezeAtWindowStart(60);
    await t.request('/api/v1/me', { key: limited.raw });
    expect((await t.request('/api/v1/me', { key: limited.raw })).status).toBe(429);
    await t.flush();
    const rows = (await list(key, `?apiKeyId=${limited.row.id}`)).data;
    expect(
      rows.map((r: { status: number; rateLimitOutcome: string; errorCode: string | null; rateLimitRemaining: number }) => [
        r.status,
        r.rateLimitOutcome,
        r.errorCode,
        r.rateLimitRemaining,
      ]),
    ).toEqual([
      [429, 'limited', 'RATE_LIMIT_EXCEEDED', 0],
      [200, 'allowed', null, 0],
    ]);
  });

  it('shows 30 days: older rows are not listed nor found (they wait for the 90-day retention)', async () => {
    const { clinic, key, keyRow } = await makeTenant(t.db);
    const old = new Date(Date.now() - 31 * 86_400_000);
    await t.db.insert(requestLogs).values({
      apiKeyId: keyRow.id,
      clinicId: clinic.id,
      requestId: 'old-request',
      method: 'GET',
      route: '/api/v1/me',
      status: 200,
      durationMs: 3,
      createdAt: old,
    });
    expect((await list(key, '?route=%2Fapi%2Fv1%2Fme')).data).toEqual([]);
    expect((await t.request('/api/v1/request-logs/old-request', { key })).status).toBe(404);
  });
});

describe('GET /api/v1/request-logs/{requestId}', () => {
  it("answers one request by its id, or by the client's own X-Request-Id (the newest with it)", async () => {
    const { key } = await makeTenant(t.db);
    const sent = await t.request('/api/v1/me', { key, headers: { 'x-request-id': 'my-call/2026-11-27#1' } });
    const generated = await t.request('/api/v1/me', { key });
    await t.flush();
    const again = await t.request('/api/v1/tags', { key, headers: { 'x-request-id': 'my-call/2026-11-27#1' } });
    await t.flush();
    const one = await t.request(`/api/v1/request-logs/${encodeURIComponent('my-call/2026-11-27#1')}`, { key });
    expect(one.status).toBe(200);
    expect((await one.json()).data).toMatchObject({
      requestId: again.headers.get('x-request-id'),
      clientRequestId: 'my-call/2026-11-27#1',
      route: '/api/v1/tags',
    });
    const first = await (await t.request(`/api/v1/request-logs/${sent.headers.get('x-request-id')}`, { key })).json();
    expect(first.data).toMatchObject({ route: '/api/v1/me', clientRequestId: 'my-call/2026-11-27#1' });
    const two = await (await t.request(`/api/v1/request-logs/${generated.headers.get('x-request-id')}`, { key })).json();
    expect(two.data).toMatchObject({ requestId: generated.headers.get('x-request-id'), clientRequestId: null });
  });

  it("finds a row written before issue 37, whose request id is the client's own", async () => {
    const { clinic, key, keyRow } = await makeTenant(t.db);
    await t.db.insert(requestLogs).values({
      apiKeyId: keyRow.id,
      clinicId: clinic.id,
      requestId: 'client-chosen-before',
      method: 'GET',
      route: '/api/v1/me',
      status: 200,
      durationMs: 3,
    });
    const res = await t.request('/api/v1/request-logs/client-chosen-before', { key });
    expect((await res.json()).data).toMatchObject({ requestId: 'client-chosen-before', clientRequestId: null });
  });

  it("answers another clinic's request id with the same 404 as an unknown one; lists only the own clinic", async () => {
    const a = await makeTenant(t.db);
    const b = await makeTenant(t.db);
    const theirs = await t.request('/api/v1/me', { key: b.key });
    await t.flush();
    const foreign = await t.request(`/api/v1/request-logs/${theirs.headers.get('x-request-id')}`, { key: a.key });
    const unknown = await t.request(`/api/v1/request-logs/${crypto.randomUUID()}`, { key: a.key });
    // An id no request can have (a NUL, a space) is the same 404, without a query.
    const impossible = await t.request('/api/v1/request-logs/a%00b', { key: a.key });
    const spaced = await t.request('/api/v1/request-logs/a%20b', { key: a.key });
    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(impossible.status).toBe(404);
    expect(spaced.status).toBe(404);
    const body = await unknown.json();
    expect(await foreign.json()).toEqual(body);
    expect(await impossible.json()).toEqual(body);
    const listed = await list(a.key, `?apiKeyId=${b.keyRow.id}`);
    expect(listed.data).toEqual([]);
    const all = await list(a.key);
    expect(all.data.every((r: { apiKeyId: string }) => r.apiKeyId === a.keyRow.id)).toBe(true);
  });
});

describe('access and input', () => {
  it('needs a key: 401 without; publishable and AI-connector keys 403; a read-scope key and a sandbox key may', async () => {
    const { clinic } = await makeTenant(t.db);
    expect((await t.request('/api/v1/request-logs')).status).toBe(401);
    const publishable = await makeKey(t.db, clinic.id, { kind: 'publishable' });
    const ai = await makeKey(t.db, clinic.id, { kind: 'ai_connector', scopes: ['read'] });
    const readOnly = await makeKey(t.db, clinic.id, { scopes: ['read'] });
    expect((await t.request('/api/v1/request-logs', { key: publishable.raw })).status).toBe(403);
    expect((await t.request('/api/v1/request-logs', { key: ai.raw })).status).toBe(403);
    expect((await t.request('/api/v1/request-logs', { key: readOnly.raw })).status).toBe(200);
    const sandbox = await makeTenant(t.db, { mode: 'sandbox' });
    await t.request('/api/v1/me', { key: sandbox.key });
    await t.flush();
    const seen = await list(sandbox.key);
    expect(seen.data.map((r: { apiKeyId: string }) => r.apiKeyId)).toEqual([sandbox.keyRow.id]);
  });

  it('answers 400 naming the field for bad filters', async () => {
    const { key } = await makeTenant(t.db);
    for (const [query, field] of [
      ['status=4yy', 'query.status'],
      ['status=600', 'query.status'],
      ['method=FETCH', 'query.method'],
      ['apiKeyId=nope', 'query.apiKeyId'],
      ['createdGte=yesterday', 'query.createdGte'],
      ['createdLte=2026-13-01T00:00:00Z', 'query.createdLte'],
      ['limit=500', 'query.limit'],
    ]) {
      const res = await t.request(`/api/v1/request-logs?${query}`, { key });
      expect(res.status, query).toBe(400);
      expect((await res.json()).message, query).toContain(field);
    }
  });
});
