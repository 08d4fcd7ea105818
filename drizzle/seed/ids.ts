// Fixed ids for demo rows, so seeding is idempotent and other areas' seeds can refer to them.
export const DEMO = {
  plans: {
    growth: '00000000-0000-4000-8000-000000000101',
    basic: '00000000-0000-4000-8000-000000000102',
    sandbox: '00000000-0000-4000-8000-000000000103',
  },
  clinics: {
    demo: '00000000-0000-4000-8000-000000000201',
    harbor: '00000000-0000-4000-8000-000000000202',
    sandbox: '00000000-0000-4000-8000-000000000203',
  },
  users: {
    demoOwner: '00000000-0000-4000-8000-000000000301',
    harborOwner: '00000000-0000-4000-8000-000000000302',
    sandboxOwner: '00000000-0000-4000-8000-000000000303',
  },
} as const;

export const DEMO_PASSWORD = 'demo-password';

/** Printed by the dev server and listed in the README. */
export const DEMO_LOGINS = [
  { clinic: 'Demo Clinic', state: 'live', plan: 'Growth (Affiliates and CRM Connect)', email: 'owner@demo-clinic.test' },
  { clinic: 'Harbor Clinic', state: 'live', plan: 'Basic (neither gate)', email: 'owner@harbor-clinic.test' },
  { clinic: 'Sandbox Clinic', state: 'sandbox, window open', plan: 'Sandbox', email: 'owner@sandbox-clinic.test' },
] as const;
