import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Handler } from 'hono';
import type { AppEnv } from '../context';

/**
 * A routes app's handler list (Hono's `routes`, in order), run-length encoded: `count` consecutive
 * handlers registered at that method and path (a route's guard, validators and handler share both).
 */
export type RouteManifest = readonly (readonly [method: string, path: string, count: number])[];

/** The manifest of a routes app, as mountOnDemand must be given it (scripts/area-routes.ts writes them). */
export function manifestOf(routes: OpenAPIHono<AppEnv>): RouteManifest {
  const manifest: [string, string, number][] = [];
  for (const { method, path, basePath } of routes.routes) {
    // Hono keeps a route's base path for c.req.baseRoutePath; a stand-in is registered at '/'.
    if (basePath !== '/') throw new Error(`${method} ${path} has the base path ${basePath}; mountOnDemand registers at '/'`);
    const last = manifest.at(-1);
    if (last && last[0] === method && last[1] === path) last[2]++;
    else manifest.push([method, path, 1]);
  }
  return manifest;
}

const sameManifest = (a: RouteManifest, b: RouteManifest) =>
  a.length === b.length && a.every(([method, path, count], i) => method === b[i]![0] && path === b[i]![1] && count === b[i]![2]);

/**
 * Mounts a routes app that is imported on its first request, as `app.route('/', routes)` would mount it
 * once loaded: a stand-in at each method and path of `manifest`, in order, so the app's router matches,
 * orders and reads path parameters exactly as with the real routes. A stand-in loads the routes (once;
 * again after a failed import) and calls the real handler at its own index with the same context and
 * `next`: Hono's `route()` copies a sub-app's handlers unwrapped when the sub-app has no error handler of
 * its own (the test of the manifests checks that none has), and compose runs them one by one, so the
 * request sees the same chain. The loaded app takes the parent's validation hook, which `route()` would
 * have reached through the parent.
 */
export function mountOnDemand(
  app: OpenAPIHono<AppEnv>,
  manifest: RouteManifest,
  load: () => Promise<{ routes: OpenAPIHono<AppEnv> }>,
): void {
  let handlers: Handler<AppEnv>[] | undefined;
  let loading: Promise<Handler<AppEnv>[]> | undefined;
  const loadHandlers = () => {
    loading ??= load().then(
      ({ routes }) => {
        // A manifest out of date would call the wrong handlers: refuse (test/api/platform/routes-on-demand.test.ts keeps them equal).
        if (!sameManifest(manifestOf(routes), manifest)) throw new Error('Route manifest out of date: npx tsx scripts/area-routes.ts');
        routes.defaultHook ??= app.defaultHook;
        handlers = routes.routes.map((route) => route.handler as Handler<AppEnv>);
        return handlers;
      },
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    );
    return loading;
  };
  let index = 0;
  for (const [method, path, count] of manifest) {
    for (let k = 0; k < count; k++) {
      const at = index++;
      app.on(method, path, (c, next) => (handlers ? handlers[at]!(c, next) : loadHandlers().then((loaded) => loaded[at]!(c, next))));
    }
  }
}
