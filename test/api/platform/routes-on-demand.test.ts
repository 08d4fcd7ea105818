// Areas on demand (src/areas.ts, src/platform/http/routes-on-demand.ts; docs/architecture.md, "Startup"):
// the Worker mounts a stand-in per handler from the generated manifests and imports an area on its first
// request. Checked here: the manifests are those of the areas; the on-demand app registers the same routes
// in the same order as the app with every area mounted, and answers every operation as it does; an area
// loads on the first request that reaches it, once, and again after a failed import.
import { OpenAPIHono } from '@hono/zod-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, routeTable } from '../../../src/app';
import { AREA_ROUTES } from '../../../src/area-routes';
import { AREAS } from '../../../src/areas';
import type { AppEnv } from '../../../src/platform/context';
import { manifestOf, mountOnDemand } from '../../../src/platform/http/routes-on-demand';
import type { RateLimiter } from '../../../src/platform/rate-limit/types';
import { buildTestApp, type TestApp } from '../../helpers/app';
import { createTestDatabase } from '../../helpers/database';
import { makeTenant } from '../../helpers/factories';

const noServices = () => Promise.reject(new Error('no request reaches the services here'));
/** Every request allowed: the two apps' answers are compared, not their limits (each app counts its own). */
const unlimited: RateLimiter = {
  limit: async (rule) => ({ success: true, limit: rule.limit, remaining: rule.limit, reset: 0 }),
  peek: async (rule) => ({ success: true, limit: rule.limit, remaining: rule.limit, reset: 0 }),
};

describe('the route manifests', () => {
  it('are those of the areas (npx tsx scripts/area-routes.ts rewrites them), whose routes have no error handler of their own', async () => {
    // Hono's default (private in its types): route() copies a sub-app's handlers unwrapped only with it.
    const errorHandlerOf = (app: OpenAPIHono<AppEnv>) => (app as unknown as { errorHandler: unknown }).errorHandler;
    const defaultErrorHandler = errorHandlerOf(new OpenAPIHono<AppEnv>());
    for (const { name, load } of AREAS) {
      const { routes } = await load();
      expect(manifestOf(routes), `${name}: src/area-routes.ts is out of date; run npx tsx scripts/area-routes.ts`).toEqual(
        AREA_ROUTES[name],
      );
      expect(errorHandlerOf(routes), name).toBe(defaultErrorHandler);
    }
    expect(AREAS.map(({ name }) => name)).toEqual(Object.keys(AREA_ROUTES));
  });

  it('give the on-demand app the same routes, in the same order, as the app with every area mounted', () => {
    const shape = (app: ReturnType<typeof createApp>) => app.routes.map(({ method, path, basePath }) => `${method} ${path} ${basePath}`);
    expect(shape(createApp(noServices, { areasOnDemand: true }))).toEqual(shape(createApp(noServices)));
  });
});

describe('an app with areas on demand', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let eager: TestApp;
  let onDemand: TestApp;
  beforeAll(async () => {
    database = await createTestDatabase();
    eager = buildTestApp(database.db, database.url, { rateLimiter: unlimited });
    onDemand = buildTestApp(database.db, database.url, { rateLimiter: unlimited, areasOnDemand: true });
  });
  afterAll(async () => {
    await Promise.all([eager.flush(), onDemand.flush()]);
    await database.close();
  });

  it('answers every operation, an unknown path and an undeclared method as the app with every area mounted', async () => {
    const { key } = await makeTenant(database.db);
    const id = crypto.randomUUID();
    const requests: { method: string; path: string; body?: unknown }[] = [
      { method: 'GET', path: '/api/v1/no-such-resource' },
      { method: 'GET', path: '/no-such-page' },
      { method: 'PATCH', path: '/api/v1/coupons' },
      { method: 'GET', path: '/api/v1/coupons?limit=-1' },
      { method: 'POST', path: '/api/v1/coupons', body: { code: '' } },
      { method: 'GET', path: '/healthz' },
    ];
    for (const route of routeTable(eager.app)) {
      const path = route.path.replace(/\{[^}]+\}/g, id);
      // A body that fails validation (or none for reads): nothing is written, so the two apps see the same data.
      requests.push({
        method: route.method,
        path,
        body: route.method === 'GET' || route.method === 'DELETE' ? undefined : { unexpected: 1 },
      });
    }
    const answers = async (app: TestApp, key: string) => {
      const out: string[] = [];
      for (const { method, path, body } of requests) {
        const res = await app.request(path, { method, key, body });
        // Successes carry the data of the moment (times, what the first pass wrote): their status is compared.
        out.push(`${method} ${path} ${res.status} ${res.ok ? '' : await res.text()}`);
      }
      return out;
    };
    const eagerAnswers = await answers(eager, key);
    const onDemandAnswers = await answers(onDemand, key);
    expect(onDemandAnswers).toEqual(eagerAnswers);
    expect(eagerAnswers.filter((answer) => / 2\d\d $/.test(answer)).length).toBeGreaterThan(50);
  }, 180_000); // about 480 requests, one at a time

  it('serves the document of the app with every area mounted', async () => {
    const [a, b] = await Promise.all([eager.request('/api/v1/openapi.json'), onDemand.request('/api/v1/openapi.json')]);
    expect(b.status).toBe(200);
    expect(await b.text()).toBe(await a.text());
  });
});

describe('mountOnDemand', () => {
  const routes = () => {
    const app = new OpenAPIHono<AppEnv>();
    app.use('/things/*', async (c, next) => {
      c.header('x-area', 'things');
      await next();
    });
    app.get('/things/:id', (c) => c.json({ id: c.req.param('id') }));
    app.post('/things', (c) => c.json({ created: true }, 201));
    return app;
  };

  it('loads the routes on the first request that reaches them, once, and again after a failed import', async () => {
    const real = routes();
    let loads = 0;
    let fail = true;
    const app = new OpenAPIHono<AppEnv>();
    app.onError((error, c) => c.text(error.message, 500));
    app.get('/other', (c) => c.text('other'));
    mountOnDemand(app, manifestOf(real), async () => {
      loads++;
      if (fail) throw new Error('import failed');
      return { routes: real };
    });
    expect((await app.request('/other')).status).toBe(200);
    expect((await app.request('/nothing')).status).toBe(404);
    expect(loads).toBe(0);
    expect(await (await app.request('/things/1')).text()).toBe('import failed');
    fail = false;
    const [first, second] = await Promise.all([app.request('/things/7'), app.request('/things', { method: 'POST' })]);
    expect(first.headers.get('x-area')).toBe('things');
    expect(await first.json()).toEqual({ id: '7' });
    expect(second.status).toBe(201);
    expect((await app.request('/things/8')).status).toBe(200);
    expect(loads).toBe(2);
  });

  it('refuses routes that differ from their manifest rather than call the wrong handler', async () => {
    const app = new OpenAPIHono<AppEnv>();
    app.onError((error, c) => c.text(error.message, 500));
    const changed = routes();
    changed.get('/things/:id/more', (c) => c.text('more'));
    mountOnDemand(app, manifestOf(routes()), async () => ({ routes: changed }));
    const res = await app.request('/things/1');
    expect(res.status).toBe(500);
    expect(await res.text()).toContain('manifest out of date');
  });
});
