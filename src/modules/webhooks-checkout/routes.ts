// The webhooks-checkout area's routes, in the order the app mounts them. Imported only through index.ts's
// loadRoutes, so a Worker builds them on the area's first request (docs/architecture.md, "Startup").
import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../platform/context';
import { checkoutRoutes } from './checkout/routes';
import { eventRoutes } from './events/routes';
import { webhookDeliveryRoutes } from './webhooks/deliveries/routes';
import { webhookRoutes } from './webhooks/routes';

export const routes = new OpenAPIHono<AppEnv>()
  .route('/', webhookRoutes)
  .route('/', webhookDeliveryRoutes)
  .route('/', eventRoutes)
  .route('/', checkoutRoutes);
