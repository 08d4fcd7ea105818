import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../context';
import { RECORDED_VALUES, type RouteAccess } from './route';

export interface RouteTableEntry {
  method: string;
  /** OpenAPI form, e.g. /api/v1/orders/{id}. */
  path: string;
  access: RouteAccess;
  /** The body fields and path parameters whose values the route declared safe to record (docs/audit-log.md). */
  recordedValues: string[];
}

/**
 * Every declared operation with its access rule (auth, scope, kind, sandbox and plan gates), read
 * from the same declarations that build the guards and the OpenAPI document.
 */
export function routeTable(app: OpenAPIHono<AppEnv>): RouteTableEntry[] {
  return app.openAPIRegistry.definitions.flatMap((definition) => {
    if (definition.type !== 'route') return [];
    const route = definition.route as typeof definition.route & { 'x-access'?: RouteAccess; [RECORDED_VALUES]?: string[] };
    if (!route['x-access']) throw new Error(`${route.method.toUpperCase()} ${route.path} was not declared with defineRoute`);
    return [
      { method: route.method.toUpperCase(), path: route.path, access: route['x-access'], recordedValues: route[RECORDED_VALUES] ?? [] },
    ];
  });
}
