// The seven areas whose routes the app mounts, foundation first (docs/architecture.md), and how: each
// area is imported on demand, its index.ts and then its routes (loadRoutes), so a Worker builds an area's
// schemas, route objects and services on the first request that reaches it rather than at start
// (docs/architecture.md, "Startup"). Node (tests, scripts) awaits loadAreas() once and mounts them all.
import type { OpenAPIHono } from '@hono/zod-openapi';
import { AREA_ROUTES, type AreaName } from './area-routes';
import type { AppEnv } from './platform/context';
import { mountOnDemand } from './platform/http/routes-on-demand';

type RoutesModule = { routes: OpenAPIHono<AppEnv> };

/** In the order the app mounts them (route order decides between overlapping paths). A new resource joins its area's routes.ts. */
const INDEXES = {
  access: () => import('./modules/access'),
  catalog: () => import('./modules/catalog'),
  orders: () => import('./modules/orders'),
  'webhooks-checkout': () => import('./modules/webhooks-checkout'),
  crm: () => import('./modules/crm'),
  storefront: () => import('./modules/storefront'),
  organization: () => import('./modules/organization'),
} satisfies Record<AreaName, () => Promise<{ loadRoutes(): Promise<RoutesModule> }>>;

type AreaIndex<N extends AreaName> = Awaited<ReturnType<(typeof INDEXES)[N]>>;

export const AREAS = (Object.keys(INDEXES) as AreaName[]).map((name) => ({
  name,
  load: (): Promise<RoutesModule> => INDEXES[name]().then((area) => area.loadRoutes()),
}));

const loaded = new Map<AreaName, { index: unknown; routes: OpenAPIHono<AppEnv> }>();

/** Imports every area (Node, before createApp; the generated OpenAPI document needs them all). */
export async function loadAreas(): Promise<void> {
  for (const name of Object.keys(INDEXES) as AreaName[]) {
    if (loaded.has(name)) continue;
    const index = await INDEXES[name]();
    loaded.set(name, { index, routes: (await index.loadRoutes()).routes });
  }
}

/** An area's index once loadAreas() has run (what only the generated document needs). */
export function loadedArea<N extends AreaName>(name: N): AreaIndex<N> {
  const area = loaded.get(name);
  if (!area) throw new Error(`The ${name} area is not loaded: await loadAreas() first`);
  return area.index as AreaIndex<N>;
}

/**
 * Mounts every area on `app`: on demand (the Worker: a stand-in per handler until the area's first
 * request), or now, which needs loadAreas() first.
 */
export function mountAreas(app: OpenAPIHono<AppEnv>, onDemand: boolean): void {
  for (const { name, load } of AREAS) {
    if (onDemand) {
      mountOnDemand(app, AREA_ROUTES[name], load);
      continue;
    }
    const area = loaded.get(name);
    if (!area)
      throw new Error(`The ${name} area is not loaded: await loadAreas() before createApp, or create it with { areasOnDemand: true }`);
    app.route('/', area.routes);
  }
}
