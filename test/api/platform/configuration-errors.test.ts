// The Worker as `wrangler dev` runs it without a .dev.vars (wrangler.toml's [vars] only: ENVIRONMENT
// "production", no secrets, no DATABASE_URL): every answer, /healthz and /docs included, is an enveloped
// 503 SERVICE_UNAVAILABLE. On this machine (a loopback URL) its message names what is missing and how to
// fix it; anywhere else (a deployed Worker's own hostname) it says nothing but the request id, and the
// details go to the log.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../../src/app';
import type { Env } from '../../../src/config';
import { workerServices } from '../../../src/platform/services';

const app = createApp(workerServices);
const ctx = { waitUntil() {}, passThroughOnException() {}, props: {} };
// wrangler.toml's [vars] and its HYPERDRIVE binding (locally: its localConnectionString), nothing else.
const HYPERDRIVE = { connectionString: 'postgres://postgres:postgres@127.0.0.1:54329/brand_admin' };
const PLAIN_WRANGLER_DEV = { ENVIRONMENT: 'production', HYPERDRIVE } as unknown as Env;

async function call(url: string, env: Env, init: RequestInit = {}) {
  const response = await app.request(url, init, env, ctx as never);
  return { response, body: (await response.json()) as { success: boolean; code: string; message: string } };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a Worker without its configuration', () => {
  it('answers every path, /healthz and /docs included, with an enveloped 503 naming what is missing and the fix (locally)', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    for (const path of ['/healthz', '/docs', '/api/v1/orders', '/api/v1/openapi.json', '/auth/signin', '/no-such-route']) {
      for (const origin of ['http://127.0.0.1:8787', 'http://localhost:8787', 'http://[::1]:8787']) {
        const { response, body } = await call(`${origin}${path}`, PLAIN_WRANGLER_DEV, { method: path === '/auth/signin' ? 'POST' : 'GET' });
        expect(response.status, `${origin}${path}`).toBe(503);
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        expect(body.success).toBe(false);
        expect(body.code).toBe('SERVICE_UNAVAILABLE');
        expect(body.message).toContain('JWT_SECRET is not set');
        expect(body.message).toContain('copy .dev.vars.example to .dev.vars');
        expect(body.message).toContain('npm run db:start');
        expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      }
    }
  });

  it('names the next missing piece once the first is there (development without a local DATABASE_URL)', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const env = { ENVIRONMENT: 'development', HYPERDRIVE } as unknown as Env;
    const { response, body } = await call('http://127.0.0.1:8787/healthz', env);
    expect(response.status).toBe(503);
    expect(body.message).toMatch(/needs DATABASE_URL to name a database on this machine/);
    expect(body.message).toContain('npm run db:start');
  });

  it('says nothing more to a client the edge names as another machine, even on a loopback host', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { response, body } = await call('http://127.0.0.1:8787/healthz', PLAIN_WRANGLER_DEV, {
      headers: { 'cf-connecting-ip': '203.0.113.9' },
    });
    expect(response.status).toBe(503);
    expect(body.message).toBe(`The service is not available (request ${response.headers.get('x-request-id')})`);
    const local = await call('http://127.0.0.1:8787/healthz', PLAIN_WRANGLER_DEV, { headers: { 'cf-connecting-ip': '127.0.0.1' } });
    expect(local.body.message).toContain('npm run db:start');
  });

  it('says nothing but the request id on a deployed hostname, and logs the reason', async () => {
    const logged: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: unknown) => void logged.push(String(line)));
    const { response, body } = await call('https://api.example.com/healthz', PLAIN_WRANGLER_DEV);
    const requestId = response.headers.get('x-request-id');
    expect(response.status).toBe(503);
    expect(body).toEqual({
      success: false,
      code: 'SERVICE_UNAVAILABLE',
      message: `The service is not available (request ${requestId})`,
      requestId,
    });
    const line = logged
      .map((l) => JSON.parse(l) as { msg: string; requestId: string; error: { message: string } })
      .find((l) => l.msg === 'configuration error');
    expect(line).toMatchObject({ requestId, error: { message: 'JWT_SECRET is not set' } });

    // A loopback name inside a longer hostname is not loopback.
    const tricky = await call('https://127.0.0.1.example.com/healthz', PLAIN_WRANGLER_DEV);
    expect(tricky.body.message).not.toContain('JWT_SECRET');
  });
});
