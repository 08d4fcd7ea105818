import { beforeAll, describe, expect, it, vi } from 'vitest';
import { useTestApp } from '../../helpers/app';
import { makeTenant } from '../../helpers/factories';
import { addProbeRoute } from '../../helpers/probe-routes';

const t = useTestApp();

beforeAll(() => {
  addProbeRoute(t.app, { auth: 'key', scope: 'write' }, 'post', '/api/v1/probe/body', true);
  addProbeRoute(t.app, { auth: 'key', scope: 'read' }, 'get', '/api/v1/probe/{id}');
  t.app.get('/api/v1/probe-crash', () => {
    throw new Error('secret internals: password=hunter2');
  });
});

describe('envelope', () => {
  it('wraps success as { success, message, data } and errors as { success, message, code }', async () => {
    const { key } = await makeTenant(t.db);
    const ok = await (await t.request('/api/v1/me', { key })).json();
    expect(Object.keys(ok).sort()).toEqual(['data', 'message', 'success']);
    const err = await (await t.request('/api/v1/me')).json();
    expect(Object.keys(err).sort()).toEqual(['code', 'message', 'success']);
    expect(err.success).toBe(false);
  });

  it('gives every response its own X-Request-Id', async () => {
    const a = await t.request('/healthz');
    const b = await t.request('/api/v1/me');
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
    expect(b.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('bad input never produces a 5xx', () => {
  it('answers 400 naming the field for wrong types and missing fields', async () => {
    const { key } = await makeTenant(t.db);
    const missing = await (await t.request('/api/v1/probe/body', { key, body: {} })).json();
    expect(missing).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    expect(missing.message).toContain('body.amount');
    expect(missing.errors).toEqual([expect.objectContaining({ field: 'body.amount' })]);
    const wrong = await t.request('/api/v1/probe/body', { key, body: { amount: 'ten' } });
    expect(wrong.status).toBe(400);
  });

  it('answers 400 INVALID_JSON for unparsable JSON, 415 for another content type, 413 above 1 MB', async () => {
    const { key } = await makeTenant(t.db);
    const broken = await t.request('/api/v1/probe/body', { key, body: '{"amount": 1' });
    expect(broken.status).toBe(400);
    expect((await broken.json()).code).toBe('INVALID_JSON');
    const xml = await t.request('/api/v1/probe/body', { key, body: '<a/>', headers: { 'content-type': 'application/xml' } });
    expect(xml.status).toBe(415);
    expect((await xml.json()).code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const huge = await t.request('/api/v1/probe/body', { key, body: JSON.stringify({ amount: 1, pad: 'x'.repeat(1024 * 1024) }) });
    expect(huge.status).toBe(413);
    expect((await huge.json()).code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('caps multipart uploads at 10 MB before any route reads them', async () => {
    const { key } = await makeTenant(t.db);
    const multipart = (bytes: number) => ({
      key,
      body: `--b\r\ncontent-disposition: form-data; name="image"; filename="a.bin"\r\n\r\n${'x'.repeat(bytes)}\r\n--b--\r\n`,
      headers: { 'content-type': 'multipart/form-data; boundary=b' },
    });
    const tooBig = await t.request('/api/v1/probe/body', multipart(10 * 1024 * 1024 + 1));
    expect(tooBig.status).toBe(413);
    // Under the cap, a JSON route still refuses the content type.
    expect((await t.request('/api/v1/probe/body', multipart(2 * 1024 * 1024))).status).toBe(415);
  });

  it('answers the same 404 for unknown and malformed ids', async () => {
    const { key } = await makeTenant(t.db);
    const a = await t.request(`/api/v1/probe/${crypto.randomUUID()}`, { key });
    const b = await t.request('/api/v1/probe/%27%3Bdrop%20table', { key });
    expect(a.status).toBe(404);
    expect(await a.text()).toBe(await b.text());
  });

  it('answers 404 for unknown routes and methods', async () => {
    const res = await t.request('/no/such/thing');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
    expect((await t.request('/auth/signin')).status).toBe(404);
  });

  it('answers an unexpected failure with 500 and the request id, logging the details and showing none', async () => {
    const { key } = await makeTenant(t.db);
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const res = await t.request('/api/v1/probe-crash', { key });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain('hunter2');
    const requestId = res.headers.get('x-request-id')!;
    expect(JSON.parse(text)).toEqual({ success: false, code: 'INTERNAL_ERROR', message: `Internal server error (request ${requestId})` });
    expect(logged.mock.calls.some(([line]) => String(line).includes(requestId) && String(line).includes('hunter2'))).toBe(true);
    logged.mockRestore();
  });
});

describe('GET /healthz', () => {
  it('answers 200 once the database answers', async () => {
    const res = await t.request('/healthz');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, message: 'OK', data: { status: 'ok', database: 'ok' } });
  });
});
