// The write walk shared by the suites that call every write of the route table (POST, PUT, PATCH,
// DELETE with a key or a brand-admin token) with proper credentials and a body that succeeds on the demo
// clinic: write-statements.test.ts counts each write's statements, audit-values.test.ts fills each
// write's text with a patient's data and looks for it in the audit trail, the request log and the log.
//
// The body is sampled from the OpenAPI document, the caller's first id of the right kind in each id
// position, as the other walkers do; where that request cannot succeed (a unique name taken, a state
// the demo data is not in), CASES builds one that does and says why. useWriteWalk(t) binds the walk to a
// suite's test app and seeds the demo data and the caller's keys before its tests.
import { randomUUID } from 'node:crypto';
import { type SQL, sql } from 'drizzle-orm';
import { beforeAll } from 'vitest';
import { DEMO } from '../../scripts/seed';
import { createApp, routeTable } from '../../src/app';
import { rowsOf } from '../../src/platform/db/sql';
import { DEVELOPMENT_DNS_PROPAGATION_MS } from '../../src/platform/providers/domains/development';
import type { TestApp } from './app';
import { makeKey } from './factories';
import { IMAGES, imageForm } from './images';
import { idPositions, operationInputs, type Schema, sample, withValue } from './openapi-inputs';
import { documentOf, resolveSchema } from './strict-response';
import { properCredentials, rowIdsByTable, seedTwoClinics, type TwoClinics, tablesForId } from './two-clinics';

let t: TestApp;

/** Binds the walk to the suite's test app: the demo data, the caller's keys and raised limits before its tests. */
export function useWriteWalk(app: TestApp): void {
  t = app;

  beforeAll(async () => {
    world = await seedTwoClinics(t);
    ownIds = await rowIdsByTable(t.db, world.caller.clinicId);
    sharedIds = await rowIdsByTable(t.db, null);
    // Limits stay enforced (and the key cache on, as with the deployed store), raised so the walk is never refused.
    t.config.rateLimitMultiplier = 1000;
  }, 120_000);
}

/** The caller and its credentials (seeded by useWriteWalk). */
export const walkWorld = (): TwoClinics => world;

const DECLARED = createApp(async () => {
  throw new Error('declarations only');
});
export const DOCUMENT = documentOf(DECLARED);
export type Route = ReturnType<typeof routeTable>[number];
// Deletions last, so a write rarely finds the caller's rows gone.
const METHOD_ORDER = ['POST', 'PUT', 'PATCH', 'DELETE'];
export const WRITES = routeTable(DECLARED)
  .filter((route) => route.method !== 'GET' && route.access.auth !== 'public')
  .sort((a, b) => METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method));
export const nameOf = (route: Pick<Route, 'method' | 'path'>) => `${route.method} ${route.path}`;

/** The length of the long list in the list runs. */
export const LIST_SIZE = 20;

let world: TwoClinics;
let ownIds: Map<string, string[]>;
let sharedIds: Map<string, string[]>;
const CALLER = DEMO.clinics.demo;
/** Unique per run and call: names, codes, slugs and emails that must not repeat. */
const RUN = randomUUID().slice(0, 6);
export const fresh = (n: number) => `${RUN}${n}`;

const rows = <T = { id: string }>(query: SQL) => rowsOf<T>(t.db, query);
/** The nth id a query answers (its rows ordered), failing loudly when there is none. */
async function nthId(query: SQL, n: number): Promise<string> {
  const found = await rows(query);
  if (!found.length) throw new Error(`no row for ${JSON.stringify(query.queryChunks.map(String)).slice(0, 200)}`);
  return found[Math.min(n, found.length - 1)]!.id;
}
const days = (d: number) => new Date(Date.now() + d * 86_400_000).toISOString();
const patients = (count: number, from = 0) =>
  rows(sql`select id from patients where clinic_id = ${CALLER} order by id offset ${from} limit ${count}`).then((r) => r.map((x) => x.id));

// biome-ignore lint/suspicious/noExplicitAny: sampled bodies are loosely typed
export type Body = any;

export interface Case {
  /** Why the sampled request cannot succeed, and what this one changes. */
  why: string;
  /** Run before the nth call, outside the count: puts in place what the call needs. */
  before?: (n: number) => Promise<void>;
  /** Path parameters of the nth call, by name (the others: the caller's nth id of their kind). */
  path?: (n: number) => Promise<Record<string, string>>;
  /** The JSON body of the nth call, from the sampled one (the caller's ids in it). */
  body?: (n: number, sampled: Body) => Body | Promise<Body>;
  /** Run after the call, outside the count: puts back what later writes need. */
  after?: () => Promise<void>;
  /** A multipart body instead of the sampled image. */
  form?: (n: number) => FormData;
}

/** Routes taking a list in the body: the body (or form) with a list of `size` items, for the nth call. */
export interface ListCase {
  body?: (size: number, n: number, sampled: Body) => Promise<Body>;
  form?: (size: number, n: number) => FormData;
}

const pendingRefundRequest = sql`select id from refund_requests where clinic_id = ${CALLER} order by id`;
const csv = (size: number, n: number) => {
  const lines = Array.from({ length: size }, (_, i) => `Ann,Import,import-${fresh(n)}-${i}@example.test`);
  const form = new FormData();
  form.append('csv', new Blob([`firstname,lastname,email\n${lines.join('\n')}\n`], { type: 'text/csv' }), 'contacts.csv');
  return form;
};

export const CASES: Record<string, Case> = {
  'POST /api-keys': {
    why: 'a brand has at most 5 active keys and the suite holds 4: the others are revoked first',
    before: async () => {
      await t.db.execute(sql`update api_keys set revoked_at = now() where clinic_id = ${CALLER} and revoked_at is null
        and id not in (${sql.join(
          world.caller.keyIds.map((id) => sql`${id}::uuid`),
          sql`, `,
        )})`);
    },
  },
  'POST /api-keys/{id}/roll': {
    why: 'the 5-key limit counts a key in its grace period: a fresh key is rolled with expiresInSeconds 0',
    before: async () => CASES['POST /api-keys']!.before!(0),
    path: async (n) => ({ id: (await makeKey(t.db, CALLER, { name: `roll ${fresh(n)}` })).row.id }),
    body: () => ({ expiresInSeconds: 0 }),
  },
  'POST /api/v1/coupons': {
    why: 'the sampled code repeats and startsAt equals expiresAt',
    body: (n, s) => ({ ...s, code: `WS${fresh(n)}`.toUpperCase(), startsAt: days(0), expiresAt: days(30) }),
  },
  'PUT /api/v1/coupons/{id}': {
    why: 'as for POST',
    body: (n, s) => ({ ...s, code: `WU${fresh(n)}`.toUpperCase(), startsAt: days(0), expiresAt: days(30) }),
  },
  'POST /api/v1/tenant-products/update-selection': {
    why: 'productId names a tenant product (a product of the sampled kind is not one)',
    body: async (n) => LISTS['POST /api/v1/tenant-products/update-selection']!.body!(1, n, {}),
  },
  'POST /api/v1/programs': {
    why: 'templateId names a program template; customSlug must be unused',
    body: (n, s) => ({ ...s, templateId: sharedIds.get('program_templates')![0], customSlug: `ws-${fresh(n)}` }),
  },
  'PUT /api/v1/programs/{id}': { why: 'customSlug must be unused', body: (n, s) => ({ ...s, customSlug: `wu-${fresh(n)}` }) },
  'POST /api/v1/programs/{id}/sync': {
    why: 'only a program made from a template syncs',
    path: async (n) => ({
      id: await nthId(sql`select id from programs where clinic_id = ${CALLER} and template_id is not null order by id`, n),
    }),
  },
  'POST /api/v1/refunds': {
    why: 'a paid order of the last 30 days, not refunded yet',
    body: async (_, s) => ({
      ...s,
      orderId: await nthId(
        sql`select o.id from orders o where o.clinic_id = ${CALLER} and o.status <> 'refunded' and o.created_at > now() - interval '29 days'
          and exists (select 1 from payments p where p.clinic_id = o.clinic_id and p.order_id = o.id and p.status = 'succeeded')
          and not exists (select 1 from refunds r where r.clinic_id = o.clinic_id and r.order_id = o.id) order by o.created_at desc`,
        0,
      ),
    }),
  },
  'POST /api/v1/refund-requests/{id}/{action}': {
    why: 'a pending request, denied (approving refunds its order, and the demo orders still refundable go to POST /api/v1/refunds)',
    before: async () => {
      await t.db.execute(
        sql`update refund_requests set status = 'pending', decided_at = null where id = (${pendingRefundRequest} limit 1)`,
      );
    },
    path: async () => ({ id: await nthId(pendingRefundRequest, 0), action: 'deny' }),
  },
  'POST /api/v1/webhooks/{id}/recover': { why: 'since is within the last 30 days', body: () => ({ since: days(-1), until: days(0) }) },
  'POST /api/v1/contacts': { why: 'the email must be unused', body: (n, s) => ({ ...s, email: `walk-${fresh(n)}@example.test` }) },
  'PUT /api/v1/contacts/{id}': { why: 'the email must be unused', body: (n, s) => ({ ...s, email: `walk-put-${fresh(n)}@example.test` }) },
  'POST /api/v1/contacts/import': { why: 'a CSV file, not an image', form: (n) => csv(1, n) },
  'POST /api/v1/tags': { why: 'tag names are unique', body: (n, s) => ({ ...s, name: `Walk ${fresh(n)}` }) },
  'PUT /api/v1/tags/{id}': { why: 'tag names are unique', body: (n, s) => ({ ...s, name: `Walk put ${fresh(n)}` }) },
  'POST /api/v1/tags/{id}/assign': {
    why: 'userId names a contact (a patient)',
    body: async (n) => ({ userId: (await patients(1, n))[0] }),
  },
  'POST /api/v1/sequences': {
    why: 'triggerTagId only goes with triggerEvent tag_added',
    body: (_, { triggerTagId: _tag, ...s }) => s,
  },
  'PUT /api/v1/sequences/{id}': {
    why: 'as for POST; the same (active) sequence both times, so both calls do the same',
    path: async () => ({ id: idFor('id', 'sequences', 0, true) }),
    body: (_, { triggerTagId: _tag, ...s }) => s,
  },
  'PUT /api/v1/organization/update': {
    why: 'the custom domain it names is added each time: the previous one removed first',
    before: () => attempt('POST', '/api/v1/clinic/custom-domain/remove'),
  },
  'POST /api/v1/sandbox/go-live': {
    why: 'a sandbox that has not asked to go live yet: the previous request removed first',
    before: async () => {
      await t.db.execute(sql`delete from go_live_requests where clinic_id = ${DEMO.clinics.sandbox}`);
      await t.db.execute(sql`update clinics set go_live_requested_at = null where id = ${DEMO.clinics.sandbox}`);
    },
  },
  'POST /api/v1/sequence-triggers/manual': {
    why: 'exactly one of userId and tag; the sequence must be active',
    body: async (n, { tag: _tag, ...s }) => ({
      ...s,
      sequenceId: await nthId(sql`select id from sequences where clinic_id = ${CALLER} and status = 'active' order by id`, 0),
      userId: (await patients(1, 10 + n))[0],
    }),
  },
  'PUT /api/v1/sequences/{id}/steps': {
    why: 'a delay step takes only its time; the steps of an active sequence cannot be replaced',
    path: async (n) => ({
      id: await nthId(sql`select id from sequences where clinic_id = ${CALLER} and status <> 'active' order by id`, n),
    }),
    body: async (n) => LISTS['PUT /api/v1/sequences/{id}/steps']!.body!(1, n, {}),
  },
  'POST /api/v1/affiliate-program/payouts/generate': {
    why:
      'what the demo data left unassigned depends on the day of the month it was loaded (its runs are mid-month): ' +
      'the call is made at an instant the test holds, with every unassigned commission earned at that instant, ' +
      'so on any date it finds nothing due and nothing to carry over',
    before: async () => {
      const at = t.clock.now();
      t.clock.freezeAt(at);
      await t.db.execute(sql`update affiliate_commissions set earned_at = ${new Date(at).toISOString()}::timestamptz
        where clinic_id = ${CALLER} and status = 'earned' and payout_id is null`);
    },
    after: async () => t.clock.unfreeze(),
  },
  'POST /api/v1/affiliate-program/payouts/{id}/approve': {
    why: 'a pending affiliate payout (the sampled id names a clinic payout): the approved demo one, set back to pending',
    before: async () => payoutStatus('approved', 'pending'),
    path: async () => ({ id: (await demoPayouts()).approved }),
  },
  'POST /api/v1/affiliate-program/payouts/{id}/mark-paid': {
    why: 'an approved affiliate payout: the approved demo one, set back to approved',
    before: async () => payoutStatus('approved', 'approved'),
    path: async () => ({ id: (await demoPayouts()).approved }),
  },
  'POST /api/v1/affiliate-program/payouts/{payoutId}/exclude-commissions': {
    why: 'the pending demo payout and a commission it includes (its commissions included again first)',
    before: async () => includeAgain(),
    path: async () => ({ payoutId: (await demoPayouts()).pending }),
    body: async () => ({ commissionIds: (await payoutCommissions(1)).slice(0, 1) }),
  },
  'POST /api/v1/affiliate-program/tax-documents/{docId}/verify': {
    why: 'a pending tax document (the demo one is verified): set back to pending first',
    before: async (n) => {
      await t.db.execute(sql`update affiliate_tax_documents set status = 'pending' where id = ${idFor('docId', 'tax-documents', n, true)}`);
    },
  },
  'POST /api/v1/affiliate-program/tax-documents/{docId}/reject': {
    why: 'as for verify',
    before: async (n) => CASES['POST /api/v1/affiliate-program/tax-documents/{docId}/verify']!.before!(n),
  },
  'POST /api/v1/affiliate-program/tiers': { why: 'one tier per referral count', body: (n, s) => ({ ...s, minActiveReferrals: 50 + n }) },
  'POST /api/v1/page-builder/pages': {
    why: 'slugs are unique',
    body: (n, s) => ({ ...s, slug: `walk-${fresh(n)}`, isHomepage: false }),
  },
  'PUT /api/v1/page-builder/pages/{id}': {
    why: 'slugs are unique',
    body: (n, s) => ({ ...s, slug: `walk-put-${fresh(n)}`, isHomepage: false }),
  },
  'PUT /api/v1/page-builder/navigation': {
    why: 'an item has a url or a pageId, not both',
    body: async (n) => LISTS['PUT /api/v1/page-builder/navigation']!.body!(1, n, {}),
  },
  'POST /api/v1/brand-treatments': {
    why: 'the treatment must not be selected yet: its selection is removed first',
    body: async (_, s) => {
      await t.db.execute(sql`delete from brand_treatments where clinic_id = ${CALLER} and treatment_id = ${s.treatmentId}`);
      return s;
    },
  },
  'POST /api/v1/forms/global-products': {
    why: 'the form must not be linked yet: its link is removed first',
    body: async (_, s) => {
      await t.db.execute(sql`delete from form_global_products where clinic_id = ${CALLER} and questionnaire_id = ${s.formId}`);
      return s;
    },
  },
  'POST /api/v1/teleform-removals/{id}/cancel': {
    why: 'a scheduled removal: the demo one, scheduled again',
    before: async () => {
      await t.db.execute(sql`update teleform_removals set status = 'scheduled' where id = ${idFor('id', 'teleform-removals', 0, true)}`);
    },
    path: async () => ({ id: idFor('id', 'teleform-removals', 0, true) }),
  },
  'POST /api/v1/billing/preview-upgrade': {
    why: 'another plan than the current one',
    body: async () => ({ newPlanId: await otherPlan() }),
  },
  'POST /api/v1/billing/change': { why: 'another plan than the current one', body: async () => ({ newPlanId: await otherPlan() }) },
  'POST /api/v1/billing/cancel': {
    why: 'an active subscription (the first call cancels it)',
    before: async () => {
      await t.db.execute(sql`update platform_subscriptions set status = 'active', cancelled_at = null where clinic_id = ${CALLER}`);
    },
  },
  'POST /api/v1/onboarding/request-name-change': {
    why: 'possible only before identity verification: onboarding is put back there (and completed after); a new name each time',
    body: (n) => ({ firstName: ['Alex', 'Sam', 'Kim', 'Lee'][n % 4], lastName: 'Rivera' }),
    before: () => onboardingAt(sql`current_step = 'identity_verification', identity_verified_at = null, name_change_requested_at = null`),
    after: () => onboardingAt(sql`current_step = 'completed'`),
  },
  'POST /api/v1/onboarding/confirm-signature-declaration': {
    why: "possible only at the agreement step; typedName is the signer's name",
    body: async () => {
      const [o] = await rows<{ f: string; l: string }>(
        sql`select signer_first_name as f, signer_last_name as l from onboarding where clinic_id = ${CALLER}`,
      );
      return { typedName: `${o!.f} ${o!.l}` };
    },
    before: () => onboardingAt(sql`current_step = 'agreement', identity_verified_at = now(), signature_declared_at = null`),
    after: () => onboardingAt(sql`current_step = 'completed'`),
  },
  'POST /api/v1/onboarding/save-business-details': {
    why: 'possible only at the business-details step',
    before: () => onboardingAt(sql`current_step = 'business_details'`),
    after: () => onboardingAt(sql`current_step = 'completed'`),
  },
  'POST /api/v1/organization/sms/activate': {
    why: 'no active toll-free number: the demo one is released first',
    before: () => attempt('DELETE', '/api/v1/organization/sms/release'),
  },
  'PUT /api/v1/organization/sms/{provider}': {
    why: 'the account may change only with no active number: released first',
    before: () => attempt('DELETE', '/api/v1/organization/sms/release'),
  },
  'DELETE /api/v1/organization/sms/release': {
    why: 'an active number (the first call releases it): activated first',
    before: () => attempt('POST', '/api/v1/organization/sms/activate'),
  },
  'DELETE /api/v1/organization/sms/{provider}': {
    why: 'a provider configuration (the first call removes it): configured first',
    before: () => attempt('PUT', '/api/v1/organization/sms/twilio'),
  },
  'POST /api/v1/clinic/custom-domain/start': {
    why: 'no custom domain yet: the demo one is removed first',
    before: () => attempt('POST', '/api/v1/clinic/custom-domain/remove'),
  },
  'POST /api/v1/clinic/custom-domain/finalize': {
    why: 'a verified domain: one started afresh, verified once the development provider counts its records published',
    before: async () => {
      await attempt('POST', '/api/v1/clinic/custom-domain/remove');
      await attempt('POST', '/api/v1/clinic/custom-domain/start');
      t.clock.advance(DEVELOPMENT_DNS_PROPAGATION_MS + 1_000);
      await attempt('POST', '/api/v1/clinic/custom-domain/verify');
    },
  },
  'POST /api/v1/clinic/custom-domain/remove': {
    why: 'a custom domain (the first call removes it): started first',
    before: () => attempt('POST', '/api/v1/clinic/custom-domain/start'),
  },
  'POST /api/v1/clinic/email-domain/start': {
    why: 'no email domain yet: the demo one is removed first',
    before: () => attempt('POST', '/api/v1/clinic/email-domain/remove'),
  },
  'POST /api/v1/clinic/email-domain/remove': {
    why: 'an email domain (the first call removes it): started first',
    before: () => attempt('POST', '/api/v1/clinic/email-domain/start'),
  },
  'POST /api/v1/team/invite': {
    why: 'one pending invitation per email',
    body: (n, s) => ({ ...s, email: `invite-${fresh(n)}@example.test` }),
  },
  'DELETE /api/v1/team/invitations/{invitationId}': {
    why: 'a pending invitation (the first call cancels it): one is made first',
    path: async (n) => {
      await attempt('POST', '/api/v1/team/invite', { email: `cancel-${fresh(n)}@example.test`, role: 'member' });
      return {
        invitationId: await nthId(
          sql`select id from invitations where clinic_id = ${CALLER} and status = 'pending' order by created_at desc`,
          0,
        ),
      };
    },
  },
  'PUT /api/v1/products/{id}': { why: 'slugs are unique', body: (n, s) => ({ ...s, slug: `walk-${fresh(n)}` }) },
  'PUT /api/v1/products-management/{id}': { why: 'slugs are unique', body: (n, s) => ({ ...s, slug: `walk-m-${fresh(n)}` }) },
  'PUT /api/v1/programs/{id}/products': {
    why: 'productId names a global product',
    body: async (n) => LISTS['PUT /api/v1/programs/{id}/products']!.body!(1, n, {}),
  },
  'PUT /api/v1/programs/{id}/titration-protocols/{attachmentId}': {
    why: 'an attachment and its own program (the sampled pair may not match)',
    path: async () => titrationAttachment(),
  },
  'DELETE /api/v1/programs/{id}/titration-protocols/{attachmentId}': {
    why: 'an attachment and its own program (the first call deletes one)',
    path: async () => titrationAttachment(),
  },
  'PUT /api/v1/message-templates/{id}': {
    why: 'an email template no sequence step uses (the sampled body is an email one: its type stays), the same both times',
    path: async () => ({ id: await nthId(unusedTemplate, 0) }),
  },
  'DELETE /api/v1/message-templates/{id}': {
    why: 'a template no sequence step uses',
    path: async (n) => ({ id: await nthId(unusedTemplate, n) }),
  },
  'PATCH /api/v1/programs/{id}/products/{productId}/activate': {
    why: 'a product of that program',
    path: async (n) => programProduct(n),
  },
  'PATCH /api/v1/programs/{id}/products/{productId}/visibility': {
    why: 'a product of that program',
    path: async (n) => programProduct(n),
  },
  'PATCH /api/v1/team/{userId}/role': {
    why: 'the same member both times, an admin first, so both calls change the role',
    before: async () => {
      await t.db.execute(sql`update users set role = 'admin' where id = ${idFor('userId', 'team', 0, true)}`);
    },
    path: async () => ({ userId: idFor('userId', 'team', 0, true) }),
  },
  'DELETE /api/v1/programs/{id}': {
    why: 'a program nobody is enrolled in (ending one with patients needs their consent)',
    path: async () => ({
      id: await nthId(
        sql`select id from programs p where clinic_id = ${CALLER} and not exists (select 1 from enrollments e where e.program_id = p.id) order by id`,
        0,
      ),
    }),
  },
  'DELETE /api/v1/tags/{id}/assign/{userId}': {
    why: 'an assignment that exists',
    path: async (n) => {
      const [row] = await rows<{ tag_id: string; patient_id: string }>(
        sql`select tag_id, patient_id from patient_tags where clinic_id = ${CALLER} order by tag_id, patient_id offset ${n} limit 1`,
      );
      return { id: row!.tag_id, userId: row!.patient_id };
    },
  },
  'DELETE /api/v1/webhooks/{id}': {
    why: 'an endpoint not deleted yet',
    path: async () => ({
      id: await nthId(sql`select id from webhook_endpoints where clinic_id = ${CALLER} and deleted_at is null order by id`, 0),
    }),
  },
  'DELETE /api/v1/crm/connection': {
    why: 'a connection (the first call removes it): connected first',
    before: () => attempt('POST', '/api/v1/crm/connect/apikey'),
  },
};

const unusedTemplate = sql`select id from message_templates m where clinic_id = ${CALLER}
  and not exists (select 1 from sequence_steps s where s.template_id = m.id) order by type <> 'email', id`;

async function onboardingAt(set: SQL) {
  await t.db.execute(sql`update onboarding set ${set} where clinic_id = ${CALLER}`);
}

/** Calls a write with its sampled body outside the count (a set-up that may find its work done already). */
async function attempt(method: string, path: string, body?: unknown) {
  const route = WRITES.find((r) => r.method === method && r.path.replace(/\{[^}]+\}/g, 'x') === path.replace(/\/twilio$/, '/x'));
  const schema = route ? operationInputs(DOCUMENT, route).jsonBody : undefined;
  await t.request(path, { key: world.caller.credentials.secret, method, body: body ?? (schema ? sample(DOCUMENT, schema) : undefined) });
}

async function otherPlan() {
  // Growth and basic take turns (sandbox is by invitation only).
  return nthId(
    sql`select id from plans where id in (${DEMO.plans.growth}, ${DEMO.plans.basic})
      and id <> (select plan_id from platform_subscriptions where clinic_id = ${CALLER} order by created_at desc limit 1) order by id`,
    0,
  );
}

async function titrationAttachment() {
  const [row] = await rows<{ id: string; program_id: string }>(
    sql`select id, program_id from program_titration_protocols where clinic_id = ${CALLER} order by created_at desc limit 1`,
  );
  return { id: row!.program_id, attachmentId: row!.id };
}

async function programProduct(n: number) {
  const found = await rows<{ program_id: string; global_product_id: string }>(
    sql`select program_id, global_product_id from program_products where clinic_id = ${CALLER} order by id`,
  );
  const row = found[Math.min(n, found.length - 1)];
  return { id: row!.program_id, productId: row!.global_product_id };
}

let payouts: { pending: string; approved: string } | undefined;
/** The demo clinic's pending payout (with the most commissions) and its approved one, as seeded. */
async function demoPayouts() {
  if (payouts) return payouts;
  const [pending] = await rows(sql`select p.id from affiliate_payouts p where p.clinic_id = ${CALLER} and p.status = 'pending'
    order by (select count(*) from affiliate_commissions c where c.payout_id = p.id) desc, p.id limit 1`);
  const [approved] = await rows(
    sql`select id from affiliate_payouts where clinic_id = ${CALLER} and status = 'approved' order by id limit 1`,
  );
  payouts = { pending: pending!.id, approved: approved!.id };
  return payouts;
}
async function payoutStatus(which: 'approved', status: string) {
  await t.db.execute(sql`update affiliate_payouts set status = ${status} where id = ${(await demoPayouts())[which]}`);
}
async function includeAgain() {
  await t.db.execute(sql`update affiliate_commissions set status = 'included' where payout_id = ${(await demoPayouts()).pending}`);
}
async function payoutCommissions(size: number) {
  const found = await rows(
    sql`select id from affiliate_commissions where payout_id = ${(await demoPayouts()).pending} order by id limit ${size}`,
  );
  return found.map((c) => c.id);
}

export const LISTS: Record<string, ListCase> = {
  'POST /api/v1/tenant-products/update-selection': {
    body: async (size) => {
      const products = await rows(sql`select id from tenant_products where clinic_id = ${CALLER} order by id limit ${size}`);
      const [form] = await rows(sql`select id from questionnaires where clinic_id = ${CALLER} order by id limit 1`);
      return { products: products.map((p) => ({ productId: p.id, questionnaireId: form!.id })) };
    },
  },
  'PUT /api/v1/programs/{id}/products': {
    body: async (size) => {
      const products = await rows(sql`select id from global_products where not is_discontinued order by id limit ${size}`);
      return { products: products.map((p) => ({ productId: p.id })) };
    },
  },
  'PUT /api/v1/page-builder/navigation': {
    body: async (size) => {
      const items = Array.from({ length: size }, (_, i) => ({ label: `Item ${i}`, url: `/programs?i=${i}` }));
      return { headerMenu: items, footerMenu: items };
    },
  },
  'PUT /api/v1/sequences/{id}/steps': {
    body: async (size) => ({ steps: Array.from({ length: size }, (_, i) => ({ type: 'delay', timeSeconds: 3600 * (i + 1) })) }),
  },
  'POST /api/v1/contacts/import': { form: csv },
  'POST /api/v1/likes/admin/counts': {
    body: async (size) => ({
      tenantProductIds: (await rows(sql`select id from tenant_products where clinic_id = ${CALLER} order by id limit ${size}`)).map(
        (r) => r.id,
      ),
    }),
  },
  'POST /api/v1/notifications/read': {
    body: async (size) => ({
      ids: (await rows(sql`select id from notifications where clinic_id = ${CALLER} order by id limit ${size}`)).map((r) => r.id),
    }),
  },
  // The demo payout includes 4 commissions: the long list is those 4 (LIST_SIZE is out of reach here).
  'POST /api/v1/affiliate-program/payouts/{payoutId}/exclude-commissions': {
    body: async (size) => ({ commissionIds: await payoutCommissions(size) }),
  },
};

export function idFor(name: string, resource: string | undefined, n: number, pathParam: boolean): string {
  const tables = [...tablesForId(name, resource), ...(pathParam ? tablesForId('id', resource) : [])];
  for (const table of tables) {
    const ids = (ownIds.get(table) ?? sharedIds.get(table) ?? []).filter((id) => !world.reservedIds.has(id));
    if (ids.length) return ids[Math.min(n, ids.length - 1)]!;
  }
  return randomUUID();
}

/** What a suite changes in a walk's request. */
export interface BuildOptions {
  idempotencyKey?: string;
  /** The body (or form) holds a list of this size (LISTS). */
  list?: number;
  /** Which of the caller's rows the ids name (the nth by default): a suite sending a route many times keeps to its first rows. */
  row?: number;
  /** The JSON body as sent, from the one the walk built. */
  editBody?: (json: Body) => Body;
  /** The multipart body as sent, from the one the walk built (the form's field name and the built form). */
  editForm?: (form: FormData) => FormData;
  /** Path parameters as sent (raw, before encoding), from the ones the walk chose. */
  editPath?: (params: Record<string, string>) => Record<string, string>;
}

/** The nth request of the route: its URL and init; `list` replaces the body with one holding a list of that size. */
export async function build(route: Route, n: number, options: BuildOptions = {}) {
  const name = nameOf(route);
  const special = CASES[name];
  await special?.before?.(n);
  const inputs = operationInputs(DOCUMENT, route);
  const positions = idPositions(DOCUMENT, route);
  const given = (await special?.path?.(n)) ?? {};
  let params: Record<string, string> = {};
  for (const param of inputs.path) {
    const at = positions.find((p) => p.in === 'path' && p.name === param.name);
    // The list runs come after the walk has deleted rows: they take the caller's first ids.
    params[param.name] =
      given[param.name] ??
      (at
        ? idFor(at.name, at.resource, options.list === undefined ? (options.row ?? n) : 0, true)
        : String(sample(DOCUMENT, param.schema)));
  }
  if (options.editPath) params = options.editPath(params);
  let path = route.path;
  for (const [name, value] of Object.entries(params)) path = path.replace(`{${name}}`, encodeURIComponent(value));
  const headers: Record<string, string> = {};
  const credentials = properCredentials(world, route.access);
  if (credentials.key) headers['x-api-key'] = credentials.key;
  if (credentials.token) headers.authorization = `Bearer ${credentials.token}`;
  if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
  let body: BodyInit | undefined;
  const list = options.list === undefined ? undefined : LISTS[name];
  if (inputs.jsonBody) {
    let json = sample(DOCUMENT, inputs.jsonBody);
    for (const p of positions.filter((p) => p.in === 'body')) {
      const id = idFor(p.name, p.resource, options.row ?? n, false);
      json = withValue(json, p.path, p.many ? [id] : id);
    }
    if (list?.body) json = await list.body(options.list!, n, json);
    else if (special?.body) json = await special.body(n, json);
    if (options.editBody) json = options.editBody(json);
    body = JSON.stringify(json);
    headers['content-type'] = 'application/json';
  } else if (inputs.multipartBody) {
    if (list?.form) body = list.form(options.list!, n);
    else if (special?.form) body = special.form(n);
    else {
      const properties = (resolveSchema(DOCUMENT, inputs.multipartBody).properties ?? {}) as Record<string, Schema>;
      const field = Object.entries(properties).find(([, s]) => resolveSchema(DOCUMENT, s).format === 'binary')?.[0] ?? 'image';
      body = imageForm(IMAGES.png, { field, filename: 'pixel.png', type: 'image/png' });
    }
    if (options.editForm) body = options.editForm(body as FormData);
  }
  return { url: path, init: { method: route.method, headers, body } };
}
