// The organization and clinic settings (docs/organization.md), mounted from src/app.ts. The SMS routes
// come first: their fixed paths (/organization/sms/status, /release) must win over /{provider}.
import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../../platform/context';
import { clinicRoutes } from '../clinic/routes';
import { customDomainRoutes } from '../clinic/custom-domain/routes';
import { emailDomainRoutes } from '../clinic/email-domain/routes';
import { organizationSettingsRoutes } from './routes';
import { smsRoutes } from './sms/routes';

export const organizationRoutes = new OpenAPIHono<AppEnv>()
  .route('/', smsRoutes)
  .route('/', organizationSettingsRoutes)
  .route('/', customDomainRoutes)
  .route('/', emailDomainRoutes)
  .route('/', clinicRoutes);
