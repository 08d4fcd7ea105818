import { z } from '@hono/zod-openapi';
import type { App } from '../../src/app';
import { jsonBody, ok } from '../../src/platform/http/envelope';
import { defineRoute, type RouteAccess } from '../../src/platform/http/route';
import { notFound } from '../../src/platform/values/errors';
import { idParam } from '../../src/platform/values/ids';

/**
 * Adds a route declared exactly like a real one (defineRoute), whose handler only answers 200 or,
 * for an id it is not told about, 404 — to exercise the platform checks on paths whose areas are
 * built by later issues. Its body, if any, must be { amount: positive integer }.
 */
export function addProbeRoute(
  app: App,
  access: RouteAccess,
  method: 'get' | 'post' | 'put' | 'patch' | 'delete',
  path: string,
  withBody = false,
) {
  const hasId = path.includes('{id}');
  const route = defineRoute(access, {
    method,
    path,
    operationId: probeOperationId(method, path),
    request: {
      ...(hasId ? { params: idParam() } : {}),
      ...(withBody ? { body: jsonBody(z.object({ amount: z.number().int().positive() })) } : {}),
    },
    responses: { 200: { description: 'reached' } },
  });
  app.openapi(route, (c) => {
    if (hasId) throw notFound('Thing');
    return c.json(ok({ reached: true }), 200);
  });
}

const capitalize = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** Unique per method and path, in the lowerCamelCase the real routes use: GET /api/v1/orders/{id} → probeGetApiV1OrdersById. */
export function probeOperationId(method: string, path: string): string {
  const words = path
    .replace(/\{([^}]+)\}/g, 'by-$1')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  return `probe${capitalize(method.toLowerCase())}${words.map(capitalize).join('')}`;
}
