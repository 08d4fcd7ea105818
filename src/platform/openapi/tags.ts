/**
 * The document's top-level `tags`: one per group of operations (the specification's sections, some split
 * where a section holds several resources), each with a description, in the order the specification
 * lists them. An operation's tag without an entry here fails test/api/platform/openapi-tools.test.ts,
 * so a new area names and describes its group here.
 */
export const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  Health: 'Readiness of the service (200 once the database answers); no key needed.',
  'Auth and key management': 'Brand-admin sign-in (a JWT) and the API keys a clinic calls the API with: create, list, rotate, revoke.',
  'Audit trail':
    "Who changed what and who read which patient's data, append-only and hash-chained per clinic: list, export as CSV, verify the chain.",
  Orders: "The clinic's orders with their fee breakdowns, their history, and the actions that move them through their states.",
  Customers: "The clinic's patients with their order counts, revenue and subscriptions.",
  Programs: 'Treatment programs a brand sells: pricing, plans, titration, forms and the products they ship.',
  'Program templates and titration': 'Shared catalogues of program templates and titration protocols; no clinic filter, no patient data.',
  'Products and catalog': "The pharmacy catalogue and the clinic's own products built on it.",
  'Pharmacy price-change alerts': 'Alerts raised when a pharmacy changes the price of a product the clinic sells.',
  Coupons: "The clinic's discount coupons and their validation at checkout.",
  'Payouts and refunds': "The clinic's payouts and the refunds of its orders.",
  'Billing and payout account': "The clinic's subscription, plan entitlements and its Stripe Connect payout account.",
  'Organization and clinic': "The clinic's profile, branding, domains, settings and organization.",
  Onboarding: 'The steps a new clinic goes through before it can sell: signer, agreement, business details, payment.',
  'Page builder': "The clinic's storefront pages (drafts, publication, versions) and navigation.",
  'Treatments (legacy)':
    'Deprecated: the treatments of the earlier storefront, kept working until their sunset date (docs/api-conventions.md, "Deprecation policy"); programs replace them.',
  'Dashboard and analytics': 'Top-line figures, revenue series and intake-form funnels, with patient data scrubbed.',
  'CRM contacts and tags': "The clinic's CRM contacts and the tags that group them.",
  'CRM sequences': 'Automated message sequences and their manual triggers.',
  'CRM message templates': 'Email and SMS templates the sequences and one-off messages use.',
  'CRM connection': 'The link to an external CRM (tier-gated: needs the CRM plan entitlement).',
  'Affiliate program': 'Affiliates, their referrals, commissions and payouts (tier-gated: needs the Affiliates plan entitlement).',
  Team: "The clinic's team members, their roles and invitations.",
  'Custom website': "The clinic's website settings: going live, footer, social links, logo and hero image.",
  'Support conversations': 'Conversations between the clinic and its patients.',
  'Support tickets': "The clinic's tickets to the platform's support team, and the staff they can be assigned to.",
  Forms: "Which global product each of the clinic's forms (questionnaires) is for.",
  'Intake requests': "The clinic's requests to the platform for new intake forms.",
  'Teleform removals': "Scheduled, completed and cancelled removals of the clinic's intake forms from its storefront.",
  Notifications: "The clinic's in-app notifications.",
  'Checkout sessions': 'Hosted checkout sessions a storefront sends patients to.',
  Webhooks: 'Webhook endpoints, their secrets, deliveries and replays, and the events API (docs/webhooks.md).',
  'Webhook events': 'The requests the API sends to webhook endpoints: one per event type, with the signing headers.',
  Sandbox: 'Turning a sandbox clinic into a live one.',
};

export interface TaggedDocument {
  tags?: { name: string; description?: string }[];
  paths?: Record<string, Record<string, unknown>>;
  webhooks?: Record<string, Record<string, unknown>>;
}

/** Adds the top-level `tags` the operations (and webhooks) use: described ones in TAG_DESCRIPTIONS order, then any other. */
export function withTags(document: TaggedDocument): void {
  const used = new Set<string>();
  for (const items of [document.paths, document.webhooks]) {
    for (const item of Object.values(items ?? {})) {
      for (const operation of Object.values(item)) {
        const tags = (operation as { tags?: unknown } | null)?.tags;
        if (Array.isArray(tags)) for (const tag of tags) used.add(String(tag));
      }
    }
  }
  const ordered = [
    ...Object.keys(TAG_DESCRIPTIONS).filter((name) => used.has(name)),
    ...[...used].filter((name) => !(name in TAG_DESCRIPTIONS)),
  ];
  document.tags = ordered.map((name) => (TAG_DESCRIPTIONS[name] ? { name, description: TAG_DESCRIPTIONS[name] } : { name }));
}
