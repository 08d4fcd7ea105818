import { OpenAPIHono, z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import type { AppEnv } from '../../../platform/context';
import { databaseUnavailable } from '../../../platform/db/errors';
import { errorBody, jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { defineRoute } from '../../../platform/http/route';
import { describeError, logLine } from '../../../platform/log';

const healthz = defineRoute(
  { auth: 'public' },
  {
    method: 'get',
    path: '/healthz',
    operationId: 'getHealth',
    tags: ['Health'],
    summary: 'Readiness: answers 200 once the database answers',
    responses: {
      200: jsonContent(successBody(z.object({ status: z.literal('ok'), database: z.literal('ok') })), 'Ready'),
      503: jsonContent(errorBody, 'Database unreachable (SERVICE_UNAVAILABLE)'),
    },
  },
);

export const healthRoutes = new OpenAPIHono<AppEnv>().openapi(healthz, async (c) => {
  try {
    await c.get('services').db.execute(sql`select 1`);
  } catch (error) {
    logLine('error', 'health check failed', { error: describeError(error) });
    throw databaseUnavailable(); // 503 with Retry-After, like any request that finds the database unavailable
  }
  return c.json(ok({ status: 'ok' as const, database: 'ok' as const }), 200);
});
