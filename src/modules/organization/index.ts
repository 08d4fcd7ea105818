// Organization (spec: "Organization and clinic", "Billing and payout account", "Onboarding", "Sandbox",
// team, support and notifications): the clinic's profile and settings, its domains and SMS, the
// platform plan and billing, onboarding and go-live, the team, support and notifications.
import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../platform/context';
import type { Sweep } from '../../platform/sweep';
import { billingRoutes } from './billing/routes';
import { platformSubscriptionsSweep } from './billing/sweeps';
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
import { expireTeamInvitations } from './team/sweeps';

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

export const sweeps: Record<string, Sweep> = {
  platformSubscriptionsSweep, // renew development subscriptions, flag lapsed processor ones (docs/billing.md)
  expireTeamInvitations, // pending invitations past expiresAt become expired (docs/team.md)
};

export { toStoredDnsRecords } from './clinic/email-domain/views';
// What the demo data (scripts/seed) builds its rows with.
export { encryptSmsAuthToken } from './organization/sms/service';
