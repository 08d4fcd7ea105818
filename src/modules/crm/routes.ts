// The crm area's routes, in the order the app mounts them. Imported only through index.ts's
// loadRoutes, so a Worker builds them on the area's first request (docs/architecture.md, "Startup").
import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../platform/context';
import { affiliateRoutes } from './affiliate-program/affiliates/routes';
import { payoutRoutes } from './affiliate-program/payouts/routes';
import { affiliateProgramRoutes } from './affiliate-program/routes';
import { taxDocumentRoutes } from './affiliate-program/tax-documents/routes';
import { tierRoutes } from './affiliate-program/tiers/routes';
import { crmConnectionRoutes } from './connection/routes';
import { contactRoutes } from './contacts/routes';
import { messageTemplateRoutes } from './message-templates/routes';
import { sequenceRoutes } from './sequences/routes';
import { tagRoutes } from './tags/routes';

export const routes = new OpenAPIHono<AppEnv>()
  .route('/', contactRoutes)
  .route('/', tagRoutes)
  .route('/', messageTemplateRoutes)
  .route('/', sequenceRoutes)
  .route('/', affiliateProgramRoutes)
  .route('/', affiliateRoutes)
  .route('/', payoutRoutes)
  .route('/', taxDocumentRoutes)
  .route('/', tierRoutes)
  .route('/', crmConnectionRoutes);
