import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../../src/platform/openapi/document';
import { type TestResponse, useTestApp } from '../../helpers/app';
import { makeTenant } from '../../helpers/factories';

const t = useTestApp();

/** Straight through the app, not the harness: the harness leaves requestId out of the bodies tests read. */
const raw = async (path: string, headers: Record<string, string> = {}) =>
  (await t.app.request(path, {
    headers: { 'cf-connecting-ip': `203.0.113.${Math.floor(Math.random() * 250) + 1}`, ...headers },
  })) as TestResponse;

describe('request ids', () => {
  it('puts requestId in every error body, the same as the X-Request-Id header', async () => {
    const { key } = await makeTenant(t.db);
    for (const [path, headers, status] of [
      ['/api/v1/me', {}, 401],
      ['/api/v1/orders/not-an-id', { 'x-api-key': key }, 404],
      ['/api/v1/orders?limit=0', { 'x-api-key': key }, 400],
      ['/api/v1/nowhere', { 'x-api-key': key }, 404],
    ] as const) {
      const res = await raw(path, headers);
      expect(res.status, path).toBe(status);
      const body = await res.json();
      expect(Object.keys(body).sort(), path).toEqual(expect.arrayContaining(['code', 'message', 'requestId', 'success']));
      expect(body.requestId, path).toBe(res.headers.get('x-request-id'));
    }
  });

  it('keeps its own id whatever the client sends: a valid X-Request-Id is data in the request log, an invalid one dropped', async () => {
    const { key } = await makeTenant(t.db);
    const sent = `client-${crypto.randomUUID()}:retry#2`;
    const res = await raw('/api/v1/orders/unknown', { 'x-api-key': key, 'x-request-id': sent });
    const ours = res.headers.get('x-request-id');
    expect(ours).toMatch(/^[0-9a-f-]{36}$/);
    expect(ours).not.toBe(sent);
    expect((await res.json()).requestId).toBe(ours);
    const long = await raw('/api/v1/me', { 'x-api-key': key, 'x-request-id': 'A'.repeat(128) });
    expect(long.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    await t.flush();
    const logged = async (id: string) =>
      (await (await raw(`/api/v1/request-logs/${encodeURIComponent(id)}`, { 'x-api-key': key })).json()).data;
    expect(await logged(ours!)).toMatchObject({ requestId: ours, clientRequestId: sent, route: '/api/v1/orders/{id}' });
    expect(await logged('A'.repeat(128))).toMatchObject({ requestId: long.headers.get('x-request-id'), clientRequestId: 'A'.repeat(128) });
  });

  it("answers a new UUID, and keeps nothing of the client's id, for an invalid X-Request-Id (empty, too long, spaces, control or non-ASCII characters)", async () => {
    const { key } = await makeTenant(t.db);
    for (const sent of ['', 'A'.repeat(129), 'has space', 'tab\there', 'caf\u00e9']) {
      // Headers refuse some values outright (control characters): send what a Headers object takes.
      let headers: Record<string, string>;
      try {
        new Headers({ 'x-request-id': sent });
        headers = { 'x-request-id': sent, 'x-api-key': key };
      } catch {
        continue;
      }
      const res = await raw('/api/v1/me', headers);
      const id = res.headers.get('x-request-id');
      expect(id, JSON.stringify(sent)).toMatch(/^[0-9a-f-]{36}$/);
      expect((await res.json()).data, JSON.stringify(sent)).toBeDefined();
      await t.flush();
      const row = await (await raw(`/api/v1/request-logs/${id}`, { 'x-api-key': key })).json();
      expect(row.data.clientRequestId, JSON.stringify(sent)).toBeNull();
    }
  });

  it('declares X-Request-Id on every response of the document, RateLimit-* where limited, Retry-After on 429s', () => {
    const document = openApiDocument(t.app) as unknown as {
      paths: Record<
        string,
        Record<
          string,
          {
            responses: Record<
              string,
              { headers?: Record<string, unknown>; content?: Record<string, { example?: { requestId?: string } }> }
            >;
          }
        >
      >;
      components: { headers: Record<string, unknown> };
    };
    expect(Object.keys(document.components.headers)).toEqual(
      expect.arrayContaining([
        'X-Request-Id',
        'RateLimit-Limit',
        'RateLimit-Remaining',
        'RateLimit-Reset',
        'RateLimit-Policy',
        'Retry-After',
      ]),
    );
    let responses = 0;
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const [status, response] of Object.entries(operation.responses ?? {})) {
          const where = `${method} ${path} ${status}`;
          responses++;
          expect(response.headers?.['X-Request-Id'], where).toBeDefined();
          if (!path.startsWith('/internal/')) expect(response.headers?.['RateLimit-Remaining'], where).toBeDefined();
          if (status === '429') expect(response.headers?.['Retry-After'], where).toBeDefined();
          if (Number(status) >= 400) {
            for (const media of Object.values(response.content ?? {})) {
              if (media.example) expect(media.example.requestId, where).toEqual(expect.any(String));
            }
          }
        }
      }
    }
    expect(responses).toBeGreaterThan(500);
  });
});
