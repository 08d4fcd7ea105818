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

  it("echoes a client's valid X-Request-Id and uses it in the error body and the request log", async () => {
    const { key } = await makeTenant(t.db);
    const sent = `client-${crypto.randomUUID()}:retry#2`;
    const res = await raw('/api/v1/orders/unknown', { 'x-api-key': key, 'x-request-id': sent });
    expect(res.headers.get('x-request-id')).toBe(sent);
    expect((await res.json()).requestId).toBe(sent);
    const ok = await raw('/api/v1/me', { 'x-api-key': key, 'x-request-id': 'A'.repeat(128) });
    expect(ok.headers.get('x-request-id')).toBe('A'.repeat(128));
  });

  it('replaces an invalid X-Request-Id (empty, too long, spaces, control or non-ASCII characters) with a new one', async () => {
    for (const sent of ['', 'A'.repeat(129), 'has space', 'tab\there', 'caf\u00e9']) {
      // Headers refuse some values outright (control characters): send what a Headers object takes.
      let headers: Record<string, string>;
      try {
        new Headers({ 'x-request-id': sent });
        headers = { 'x-request-id': sent };
      } catch {
        continue;
      }
      const res = await raw('/api/v1/me', headers);
      const id = res.headers.get('x-request-id');
      expect(id, JSON.stringify(sent)).toMatch(/^[0-9a-f-]{36}$/);
      expect((await res.json()).requestId).toBe(id);
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
