// The catalog area's routes, in the order the app mounts them. Imported only through index.ts's
// loadRoutes, so a Worker builds them on the area's first request (docs/architecture.md, "Startup").
import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../platform/context';
import { couponRoutes } from './coupons/routes';
import { globalFormStructureRoutes } from './global-form-structures/routes';
import { globalProductRoutes } from './global-products/routes';
import { priceAlertRoutes } from './pharmacy-price-changes/routes';
import { productCatalogRoutes } from './product-catalog/routes';
import { productRoutes } from './products/routes';
import { programTemplateRoutes } from './program-templates/routes';
import { programCopilotRoutes } from './programs/copilot/routes';
import { programRoutes } from './programs/routes';
import { tenantProductRoutes } from './tenant-products/routes';
import { titrationProtocolRoutes } from './titration-protocols/routes';
import { uploadRoutes } from './uploads/routes';

export const routes = new OpenAPIHono<AppEnv>()
  .route('/', couponRoutes)
  .route('/', priceAlertRoutes)
  .route('/', programTemplateRoutes)
  .route('/', titrationProtocolRoutes)
  .route('/', globalFormStructureRoutes)
  .route('/', productRoutes)
  .route('/', productCatalogRoutes)
  .route('/', globalProductRoutes)
  .route('/', uploadRoutes)
  .route('/', tenantProductRoutes)
  .route('/', programCopilotRoutes)
  .route('/', programRoutes);
