// setResponseHeaders (src/platform/http/response-headers.ts): after the handler answered, headers are
// changed on the answer itself (Hono's c.header would copy the whole response per call), and an answer
// whose headers cannot change is copied once.
import { type Context, Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { setResponseHeaders } from '../../src/platform/http/response-headers';

function appWith(handler: (c: Context) => Response | Promise<Response>) {
  const app = new Hono();
  const seen: { before?: Response; after?: Response } = {};
  app.use('*', async (c, next) => {
    c.header('X-Early', '1'); // before the answer: on Hono's prepared headers
    await next();
    seen.before = c.res;
    setResponseHeaders(c, [
      ['X-Late', 'yes'],
      ['X-Early', undefined],
      ['X-Other', 'too'],
    ]);
    seen.after = c.res;
  });
  app.get('/', handler);
  return { app, seen };
}

describe('setResponseHeaders', () => {
  it('changes the headers of a finished answer in place, without copying it', async () => {
    const { app, seen } = appWith((c) => c.json({ ok: true }, 201));
    const res = await app.request('/');
    expect(seen.after).toBe(seen.before);
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ ok: true });
    expect(res.headers.get('x-late')).toBe('yes');
    expect(res.headers.get('x-other')).toBe('too');
    expect(res.headers.has('x-early')).toBe(false);
  });

  it('copies an answer whose headers are immutable once, and changes the copy', async () => {
    const { app, seen } = appWith(() => Response.redirect('https://example.test/elsewhere', 302));
    const res = await app.request('/');
    expect(seen.after).not.toBe(seen.before);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('https://example.test/elsewhere');
    expect(res.headers.get('x-late')).toBe('yes');
    expect(res.headers.get('x-other')).toBe('too');
    expect(res.headers.has('x-early')).toBe(false);
  });
});
