// The strict response check itself (test/helpers/strict-response.ts): it must be able to fail.
import { z } from '@hono/zod-openapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { jsonContent, ok, successBody } from '../../../src/platform/http/envelope';
import { defineRoute } from '../../../src/platform/http/route';
import { useTestApp } from '../../helpers/app';
import { makeTenant } from '../../helpers/factories';
import { assertDeclaredResponse, documentOf, findOperation, UndeclaredResponseError } from '../../helpers/strict-response';

const t = useTestApp();
let leak: Record<string, unknown> = {};

beforeAll(() => {
  // A declared route whose handler sends whatever the test puts in `leak` next to the declared field.
  const route = defineRoute(
    { auth: 'key', scope: 'read' },
    {
      method: 'get',
      path: '/api/v1/probe/strict',
      operationId: 'probeStrict',
      responses: { 200: jsonContent(successBody(z.object({ id: z.string() })), 'ok') },
    },
  );
  t.app.openapi(route, (c) => c.json(ok({ id: 'x', ...leak }) as never, 200));
});

const json = (body: unknown, status = 200, contentType = 'application/json') =>
  new Response(typeof body === 'string' ? body : JSON.stringify(body), { status, headers: { 'content-type': contentType } });

const me = {
  clinicId: crypto.randomUUID(),
  keyName: 'k',
  keyPrefix: 'svc_live_abcdefgh',
  scopes: ['read'],
  kind: 'secret',
  isSandbox: false,
  rateLimitPerMin: null,
};
const check = (method: string, path: string, response: Response) => assertDeclaredResponse(t.app, { method, path }, response);

describe('assertDeclaredResponse', () => {
  it('accepts a body that matches its declaration', async () => {
    await check('GET', '/api/v1/me', json({ success: true, message: 'OK', data: me }));
    await check('GET', '/api/v1/me', json({ success: false, message: 'no', code: 'UNAUTHORIZED', requestId: 'r-1' }, 401));
    await check(
      'POST',
      '/auth/signin',
      json(
        { success: false, message: 'bad', code: 'VALIDATION_ERROR', requestId: 'r-2', errors: [{ field: 'body.email', message: 'x' }] },
        400,
      ),
    );
  });

  it('refuses an extra key, at the top, nested, in an array item and in the error envelope', async () => {
    await expect(check('GET', '/api/v1/me', json({ success: true, message: 'OK', data: me, extra: 1 }))).rejects.toThrow(
      /\$\.extra: undeclared key/,
    );
    await expect(check('GET', '/api/v1/me', json({ success: true, message: 'OK', data: { ...me, keyHash: 'h' } }))).rejects.toThrow(
      /\$\.data\.keyHash: undeclared key/,
    );
    await expect(
      check('GET', '/api/v1/me', json({ success: false, message: 'no', code: 'UNAUTHORIZED', stack: 'at x' }, 401)),
    ).rejects.toThrow(/\$\.stack: undeclared key/);
    await expect(
      check(
        'POST',
        '/auth/signin',
        json({ success: false, message: 'bad', code: 'VALIDATION_ERROR', errors: [{ field: 'f', message: 'm', value: 'secret' }] }, 400),
      ),
    ).rejects.toThrow(/\$\.errors\[0\]\.value: undeclared key/);
  });

  it('treats an object split over allOf as one closed object', async () => {
    const key = {
      id: crypto.randomUUID(),
      name: 'n',
      kind: 'secret',
      keyPrefix: 'svc_live_x',
      scopes: ['read'],
      isSandbox: false,
      rateLimitPerMin: null,
      createdAt: new Date().toISOString(),
      expiresAt: null,
      lastUsedAt: null,
      revokedAt: null,
      rolledToKeyId: null,
      apiKey: 'svc_live_raw',
    };
    await check('POST', '/api-keys', json({ success: true, message: 'Created', data: key }, 201));
    await expect(
      check('POST', '/api-keys', json({ success: true, message: 'Created', data: { ...key, createdByUserId: crypto.randomUUID() } }, 201)),
    ).rejects.toThrow(/\$\.data\.createdByUserId: undeclared key/);
    const { apiKey: _apiKey, ...withoutRaw } = key;
    await expect(check('POST', '/api-keys', json({ success: true, message: 'Created', data: withoutRaw }, 201))).rejects.toThrow(
      /missing required apiKey/,
    );
  });

  it('refuses wrong types, enums, formats, missing fields and non-JSON bodies', async () => {
    await expect(check('GET', '/api/v1/me', json({ success: true, message: 'OK', data: { ...me, isSandbox: 'no' } }))).rejects.toThrow(
      /isSandbox: expected boolean/,
    );
    await expect(check('GET', '/api/v1/me', json({ success: true, message: 'OK', data: { ...me, kind: 'root' } }))).rejects.toThrow(
      /kind: "root" is not one of/,
    );
    await expect(check('GET', '/api/v1/me', json({ success: true, message: 'OK', data: { ...me, clinicId: 'x' } }))).rejects.toThrow(
      /clinicId: "x" is not a uuid/,
    );
    await expect(check('GET', '/api/v1/me', json({ success: true, message: 'OK' }))).rejects.toThrow(/missing required data/);
    await expect(check('GET', '/api/v1/me', json({ success: false, message: 'no' }, 401))).rejects.toThrow(/missing required code/);
    await expect(check('GET', '/api/v1/me', json('<html>', 200, 'text/html'))).rejects.toBeInstanceOf(UndeclaredResponseError);
  });

  it('skips what has no declaration: unknown routes, undeclared statuses, responses without a JSON schema', async () => {
    await check('GET', '/no/such/route', json({ anything: true }));
    await check('GET', '/api/v1/me', json({ anything: true }, 418));
    await check('GET', '/api/v1/openapi.json', json({ openapi: '3.1.0' }));
  });

  it('matches literal paths before templated ones, and {id} to one segment', () => {
    const document = documentOf(t.app);
    expect(findOperation(document, 'DELETE', '/api-keys/abc?x=1')?.path).toBe('/api-keys/{id}');
    expect(findOperation(document, 'DELETE', '/api-keys/abc/def')).toBeNull();
    expect(findOperation(document, 'GET', '/api-keys')?.path).toBe('/api-keys');
    expect(findOperation(document, 'PATCH', '/api-keys')).toBeNull();
  });
});

describe('t.request() checks every response', () => {
  it('fails the request of a handler that leaks an undeclared field', async () => {
    const { key } = await makeTenant(t.db);
    leak = {};
    expect((await t.request('/api/v1/probe/strict', { key })).status).toBe(200);
    leak = { keyHash: 'deadbeef' };
    await expect(t.request('/api/v1/probe/strict', { key })).rejects.toThrow(
      /GET \/api\/v1\/probe\/strict → 200: .*\$\.data\.keyHash: undeclared key/s,
    );
    leak = {};
  });
});
