// The organization area's routes, in the order the app mounts them. Imported only through index.ts's
// loadRoutes, so a Worker builds them on the area's first request (docs/architecture.md, "Startup").
import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../platform/context';
import { billingRoutes } from './billing/routes';
import { customDomainRoutes } from './clinic/custom-domain/routes';
import { emailDomainRoutes } from './clinic/email-domain/routes';
import { clinicRoutes } from './clinic/routes';
import { notificationRoutes } from './notifications/routes';
import { onboardingRoutes } from './onboarding/routes';
import { organizationSettingsRoutes } from './organization/routes';
import { smsRoutes } from './organization/sms/routes';
import { sandboxRoutes } from './sandbox/routes';
import { supportRoutes } from './support/routes';
import { teamRoutes } from './team/routes';

export const routes = new OpenAPIHono<AppEnv>()
  .route('/', notificationRoutes)
  .route('/', billingRoutes)
  .route('/', onboardingRoutes)
  .route('/', sandboxRoutes)
  // The SMS routes first: their fixed paths (/organization/sms/status, /release) must win over /{provider}.
  .route('/', smsRoutes)
  .route('/', organizationSettingsRoutes)
  .route('/', customDomainRoutes)
  .route('/', emailDomainRoutes)
  .route('/', clinicRoutes)
  .route('/', teamRoutes)
  .route('/', supportRoutes);
