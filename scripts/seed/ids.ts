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

/**
 * Fixed demo ids by block, so seeders can refer to each other's rows without lookups:
 * `demoId(DEMO_BLOCKS.globalProducts, 3)`. Blocks 1-9 are the commerce core's; areas take the next ones.
 */
export const DEMO_BLOCKS = {
  pharmacies: 1,
  globalProducts: 2,
  coverages: 3,
  templates: 4,
  templateProducts: 5,
  titrationProtocols: 6,
  formStructures: 7,
  patients: 8,
  questionnaires: 9,
  programs: 10,
  programProducts: 11,
  enrollments: 12,
  programTitration: 13,
  products: 14,
  tenantProducts: 15,
  coupons: 16,
  redemptions: 17,
  priceAlerts: 18,
} as const;

export function demoId(block: number, n: number): string {
  return `00000000-0000-4000-8${block.toString(16).padStart(3, '0')}-${n.toString(16).padStart(12, '0')}`;
}

/** The live demo clinics whose commerce data is seeded (the sandbox clinic gets none). */
export const LIVE_DEMO_CLINICS = [DEMO.clinics.demo, DEMO.clinics.harbor] as const;

/** Blocks of the orders area (issue 7). */
export const ORDER_BLOCKS = {
  orders: 19,
  orderItems: 20,
  payments: 21,
  shipments: 22,
  orderEvents: 23,
  labLegs: 24,
  visits: 25,
  titrationSchedules: 26,
  payouts: 27,
  refunds: 28,
  refundRequests: 29,
  disputes: 30,
  shippingAddresses: 31,
} as const;

/** Blocks of the CRM area (issue 9). */
export const CRM_BLOCKS = {
  tags: 40,
  templates: 41,
  sequences: 42,
  sequenceSteps: 43,
  sequenceEnrollments: 44,
  crmConnections: 45,
  messages: 46,
} as const;

/** Blocks of the affiliate program (issue 9). */
export const AFFILIATE_BLOCKS = {
  affiliates: 50,
  referrals: 51,
  commissions: 52,
  payouts: 53,
  taxDocuments: 54,
  tiers: 55,
  /** Extra patients and orders that the affiliates referred (Demo Clinic only). */
  referredPatients: 56,
  referredOrders: 57,
} as const;

/** Blocks of the storefront area (issue 10). */
export const STOREFRONT_BLOCKS = {
  pages: 60,
  pageVersions: 61,
  treatments: 62,
  brandTreatments: 63,
  formSessions: 64,
  likes: 65,
  notifications: 66,
  intakeRequests: 67,
  teleformRemovals: 68,
  formGlobalProducts: 69,
  uploads: 70,
} as const;

/** Blocks of the organization area (issue 11). */
export const ORGANIZATION_BLOCKS = {
  subscriptions: 80,
  customDomains: 81,
  emailDomains: 82,
  invitations: 83,
  goLiveRequests: 84,
  conversations: 85,
  conversationMessages: 86,
  supportTickets: 87,
  supportTicketMessages: 88,
  users: 89,
} as const;
