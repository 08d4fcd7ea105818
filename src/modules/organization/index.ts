// Organization (spec: "Organization and clinic", "Billing and payout account", "Onboarding", "Sandbox",
// team, support and notifications): the clinic's profile and settings, its domains and SMS, the
// platform plan and billing, onboarding and go-live, the team, support and notifications.
import type { Sweep } from '../../platform/sweep';
import { platformSubscriptionsSweep } from './billing/sweeps';
import { expireTeamInvitations } from './team/sweeps';

/** The area's routes, imported on its first request (docs/architecture.md, "Startup"). */
export const loadRoutes = () => import('./routes');

export const sweeps: Record<string, Sweep> = {
  platformSubscriptionsSweep, // renew development subscriptions, flag lapsed processor ones (docs/billing.md)
  expireTeamInvitations, // pending invitations past expiresAt become expired (docs/team.md)
};

export { toStoredDnsRecords } from './clinic/email-domain/views';
// What the demo data (scripts/seed) builds its rows with.
export { encryptSmsAuthToken } from './organization/sms/service';
