// Access (spec: "Auth and key management", "Authentication"): brand-admin sign-in, API keys, the key's
// own view (GET /api/v1/me), the clinic's request logs and the health check. A foundation area: it imports no other area.
import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../platform/context';
import type { Sweep } from '../../platform/sweep';
import { apiKeyRoutes } from './api-keys/routes';
import { auditEventRoutes } from './audit-events/routes';
import { authRoutes } from './auth/routes';
import { healthRoutes } from './health/routes';
import { meRoutes } from './me/routes';
import { requestLogRoutes } from './request-logs/routes';

export const routes = new OpenAPIHono<AppEnv>()
  .route('/', healthRoutes)
  .route('/', authRoutes)
  .route('/', apiKeyRoutes)
  .route('/', meRoutes)
  .route('/', requestLogRoutes)
  .route('/', auditEventRoutes);

export const sweeps: Record<string, Sweep> = {};
