// Two clinics holding everything a clinic can own, for the suites that walk the route table (the fuzz
// and isolation properties, test/properties): the demo data's Demo Clinic calls (keys of every kind, a
// sandbox key of the demo sandbox clinic, a brand-admin token), and Harbor Clinic stands by: its rows,
// one table at a time, must come out of every request unchanged (clinicChecksums). Ids of both
// clinics are read back by table, so a suite can send the caller's real ids, the bystander's real ids,
// random ids and junk to any operation.
import { randomUUID } from 'node:crypto';
import { is, sql } from 'drizzle-orm';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import * as schema from '../../drizzle/schema';
import { DEMO, DEMO_PASSWORD, seedDemoData } from '../../scripts/seed';
import type { Database } from '../../src/platform/db/client';
import type { RouteAccess } from '../../src/platform/http/route';
import type { RateLimiter } from '../../src/platform/rate-limit/types';
import type { TestApp } from './app';
import { makeImageOverride, makeQuestionnaireSelection } from './catalog-fixtures';
import { makeKey } from './factories';

export const CALLER = DEMO.clinics.demo;
export const BYSTANDER = DEMO.clinics.harbor;

/**
 * Lets every request through: a property run sends hundreds of requests a minute per key, and a 429
 * would only hide the handler behind it (the limits have their own tests, rate-limits.test.ts).
 */
export const unlimitedRateLimiter = (): RateLimiter => {
  const allowed = async () => ({ success: true, limit: 1_000_000, remaining: 1_000_000, reset: Date.now() + 60_000 });
  return { limit: allowed, peek: allowed };
};

/** The caller's credentials; every key belongs to the caller (the sandbox key to the demo sandbox clinic). */
export interface Credentials {
  secret: string;
  readOnly: string;
  publishable: string;
  aiConnector: string;
  sandbox: string;
  /** A brand-admin (owner) bearer token of the caller. */
  token: string;
}

export interface TwoClinics {
  caller: { clinicId: string; ownerId: string; credentials: Credentials; keyIds: string[] };
  bystander: { clinicId: string };
  /** Row ids that must stay out of the caller's own-id pools: revoking the suite's keys or removing its signed-in owner ends the run's access. */
  reservedIds: Set<string>;
}

interface ClinicTable {
  name: string;
  /** Whether rows have an `id` column (a few tables are keyed by clinic_id alone). */
  hasId: boolean;
}

/** Every table of the Drizzle schema, read from its exports (so a new table is covered without a list). */
const tableConfigs = (Object.values(schema) as unknown[]).flatMap((value) => (is(value, PgTable) ? [getTableConfig(value)] : []));

/** The clinic-owned tables: those with a clinic_id column. */
export const clinicTables: ClinicTable[] = tableConfigs
  .filter((config) => config.columns.some((c) => c.name === 'clinic_id'))
  .map((config) => ({ name: config.name, hasId: config.columns.some((c) => c.name === 'id') }))
  .sort((a, b) => a.name.localeCompare(b.name));

/** Tables without clinic_id but with ids: the shared catalogues (global products, templates, plans...). */
export const sharedTables: string[] = tableConfigs
  .filter((config) => config.name !== 'clinics' && !config.columns.some((c) => c.name === 'clinic_id'))
  .filter((config) => config.columns.some((c) => c.name === 'id'))
  .map((config) => config.name)
  .sort();

const rowsOf = async <T>(db: Database, query: ReturnType<typeof sql>) => ((await db.execute(query)) as unknown as { rows: T[] }).rows;

/**
 * A checksum of each clinic-owned table's rows of `clinicId` (and of its clinics row), in one
 * statement: md5 of the rows' text, in text order. Equal checksums before and after: no row of the
 * clinic was inserted, changed or deleted.
 */
export async function clinicChecksums(db: Database, clinicId: string): Promise<Record<string, string>> {
  if (!/^[0-9a-f-]{36}$/.test(clinicId)) throw new Error(`not a clinic id: ${clinicId}`);
  const checksum = (table: string, column: string) =>
    `(select md5(coalesce(string_agg(t::text, ',' order by t::text), '')) from ${table} t where ${column} = '${clinicId}') as "${table}"`;
  const parts = [checksum('clinics', 'id'), ...clinicTables.map((table) => checksum(table.name, 'clinic_id'))];
  const [row] = await rowsOf<Record<string, string>>(db, sql.raw(`select ${parts.join(', ')}`));
  return row!;
}

/** The tables whose checksum differs between two clinicChecksums results. */
export const changedTables = (before: Record<string, string>, after: Record<string, string>) =>
  Object.keys({ ...before, ...after }).filter((table) => before[table] !== after[table]);

/**
 * Row ids of a clinic by table (the clinics row under "clinics"), in id order so a seed replays the same
 * picks; the shared tables' ids (200 at most each) when `clinicId` is null.
 */
export async function rowIdsByTable(db: Database, clinicId: string | null): Promise<Map<string, string[]>> {
  const selects =
    clinicId === null
      ? sharedTables.map((table) => `(select '${table}' as t, id::text as id from ${table} order by id limit 200)`)
      : [
          `(select 'clinics' as t, id::text as id from clinics where id = '${clinicId}')`,
          ...clinicTables
            .filter((table) => table.hasId)
            .map((table) => `(select '${table.name}', id::text from ${table.name} where clinic_id = '${clinicId}' order by id)`),
        ];
  const rows = await rowsOf<{ t: string; id: string }>(db, sql.raw(selects.join(' union all ')));
  const byTable = new Map<string, string[]>();
  for (const row of rows) {
    if (!byTable.has(row.t)) byTable.set(row.t, []);
    byTable.get(row.t)!.push(row.id);
  }
  return byTable;
}

// --- which table an id names ---

/** Id names whose resource is not spelled like its table (path and body names of the API, docs/*.md). */
const ID_ALIASES: Record<string, string[]> = {
  contact: ['patients'],
  customer: ['patients'],
  user: ['users', 'patients'],
  membership: ['affiliates'],
  doc: ['affiliate_tax_documents'],
  attachment: ['program_titration_protocols'],
  form: ['questionnaires'],
  alert: ['price_change_alerts'],
  session: ['checkout_sessions', 'form_sessions'],
  ticket: ['support_tickets'],
  invitation: ['invitations'],
  products_management: ['products'],
  treatment: ['treatments'],
  tier: ['affiliate_tiers'],
  commission: ['affiliate_commissions'],
  payout: ['payouts', 'affiliate_payouts'],
  plan: ['plans'],
  webhook: ['webhook_endpoints'],
  event: ['outbox_events'],
  // The audit trail's filters (GET /api/v1/audit-events): the acting key or user, and a resource acted on
  // or read (an order, a patient, a coupon here; any resource's id in general).
  actor: ['api_keys', 'users'],
  target: ['orders', 'patients', 'coupons'],
};

const snake = (name: string) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/-/g, '_')
    .toLowerCase();
const plural = (stem: string) => (/[^aeiou]y$/.test(stem) ? `${stem.slice(0, -1)}ies` : stem.endsWith('s') ? stem : `${stem}s`);

/**
 * The tables an id may name, from its name (tenantProductId → tenant_products, userId → users and
 * patients) or, for a bare `id`/`ids`, from the resource segment it follows (/coupons/{id} →
 * coupons): the name's words from the longest phrase down (tenant_product, then product), the first
 * that matches giving the table of that name or ID_ALIASES' tables first, then the tables ending in it.
 * Empty: nothing matched (a new id name needs an alias).
 */
export function tablesForId(name: string, resource: string | undefined): string[] {
  const base = /^ids?$/i.test(name) ? (resource ?? '') : name.replace(/Ids?$/, '');
  const words = snake(base).split('_').filter(Boolean);
  const all = [...clinicTables.map((t) => t.name), ...sharedTables, 'clinics'];
  for (let i = 0; i < words.length; i++) {
    const phrase = words.slice(i).join('_');
    const stem = phrase.replace(/ies$/, 'y').replace(/s$/, '');
    // The table the name spells first, then the tables ending in it (products: products, then tenant_products...).
    const exact = [...(ID_ALIASES[stem] ?? ID_ALIASES[phrase] ?? []), ...all.filter((table) => table === plural(stem))];
    const suffixed = all.filter((table) => table.endsWith(`_${plural(stem)}`) && !exact.includes(table)).sort();
    if (exact.length || suffixed.length) return [...new Set([...exact, ...suffixed])];
  }
  return [];
}

// --- seeding ---

const unique = () => randomUUID().slice(0, 8);

async function api(t: TestApp, key: string, path: string, body?: unknown, method?: string) {
  const res = await t.request(path, { key, body, method });
  if (res.status >= 300) throw new Error(`seeding ${method ?? 'POST'} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()).data;
}

/**
 * What each live clinic gets beyond the demo data: a webhook endpoint with a delivery and an attempt,
 * a checkout session, a processor price, a questionnaire selection and an image override.
 */
async function addClinicExtras(t: TestApp, clinicId: string, key: string, publishable: string) {
  const endpoint = await api(t, key, '/api/v1/webhooks', { url: `https://hooks.example.test/${unique()}`, events: ['order.created'] });
  const [event] = await rowsOf<{ id: string }>(t.db, sql`select id from outbox_events where clinic_id = ${clinicId} limit 1`);
  const [delivery] = await t.db
    .insert(schema.webhookDeliveries)
    .values({
      clinicId,
      endpointId: endpoint.id,
      outboxEventId: event!.id,
      eventType: 'order.created',
      idempotencyKey: `evt_${unique()}`,
      status: 'failed',
      attempts: 1,
      lastAttemptAt: new Date(),
      lastResponseStatus: 500,
    })
    .returning();
  await t.db
    .insert(schema.webhookAttempts)
    .values({ clinicId, deliveryId: delivery!.id, attemptNumber: 1, responseStatus: 500, durationMs: 12 });
  const [program] = await rowsOf<{ id: string }>(
    t.db,
    sql`select id from programs where clinic_id = ${clinicId} and state = 'live' and is_active order by name limit 1`,
  );
  await api(t, publishable, '/api/v1/checkout/sessions', { programId: program!.id });
  const [tenantProduct] = await rowsOf<{ id: string; global_product_id: string }>(
    t.db,
    sql`select id, global_product_id from tenant_products where clinic_id = ${clinicId} order by id limit 1`,
  );
  await api(t, key, '/api/v1/tenant-products/update', { tenantProductId: tenantProduct!.id, price: 149.99 });
  await makeQuestionnaireSelection(t.db, clinicId, tenantProduct!.id);
  await makeImageOverride(t.db, clinicId, tenantProduct!.global_product_id, 'https://cdn.example.test/override.png');
}

/**
 * The bystander's rows of the areas the demo data gives only to Demo Clinic (affiliates, CRM
 * connection, SMS account), inserted directly: Harbor's plan has neither gate, and affiliates,
 * referrals and tax documents come from the affiliates' own portal, not this API.
 */
async function addBystanderOnlyRows(db: Database, clinicId: string) {
  const s = schema;
  await db.insert(s.affiliatePrograms).values({ clinicId, enabled: true, firstOrderRateHundredths: 2_000, defaultRateHundredths: 1_000 });
  const [affiliate] = await db
    .insert(s.affiliates)
    .values({ clinicId, firstName: 'Bys', lastName: 'Tander', email: `aff-${unique()}@partners.test`, referralCode: `BYS${unique()}` })
    .returning();
  const [order] = await rowsOf<{ id: string; patient_id: string }>(
    db,
    sql`select id, patient_id from orders where clinic_id = ${clinicId} and paid_at is not null order by id limit 1`,
  );
  const [referral] = await db
    .insert(s.affiliateReferrals)
    .values({ clinicId, affiliateId: affiliate!.id, patientId: order!.patient_id, referredAt: new Date(Date.now() - 90 * 86_400_000) })
    .returning();
  const periodStart = new Date(Date.UTC(2029, 0, 1));
  const [payout] = await db
    .insert(s.affiliatePayouts)
    .values({ clinicId, affiliateId: affiliate!.id, periodStart, periodEnd: new Date(Date.UTC(2029, 1, 1)), amountCents: 1_000 })
    .returning();
  await db.insert(s.affiliateCommissions).values({
    clinicId,
    affiliateId: affiliate!.id,
    referralId: referral!.id,
    orderId: order!.id,
    isFirstOrder: true,
    baseAmountCents: 10_000,
    rateHundredths: 1_000,
    amountCents: 1_000,
    status: 'included',
    payoutId: payout!.id,
    earnedAt: periodStart,
  });
  await db.insert(s.affiliateTaxDocuments).values({ clinicId, affiliateId: affiliate!.id, documentType: 'w9', taxYear: 2029 });
  await db.insert(s.affiliateTiers).values({ clinicId, minActiveReferrals: 5, percentageHundredths: 1_500, label: 'Bystander tier' });
  await db
    .insert(s.crmConnections)
    .values({ clinicId, provider: 'hubspot', authType: 'api_key', encryptedCredentials: 'not-decrypted-here', credentialHint: '1234' });
  await db
    .insert(s.smsConfigs)
    .values({ clinicId, provider: 'twilio', accountSid: `AC${'0'.repeat(32)}`, encryptedAuthToken: 'not-decrypted-here' });
  await db.insert(s.goLiveRequests).values({ clinicId, signerFirstName: 'By', signerLastName: 'Stander', signerEmail: 'by@stander.test' });
}

/**
 * Loads the demo data and the extras above, makes the caller's keys (secret read+write, read-only,
 * publishable, AI-connector, and a sandbox key of the demo sandbox clinic) and signs its owner in.
 */
export async function seedTwoClinics(t: TestApp): Promise<TwoClinics> {
  await seedDemoData(t.db);
  const key = (clinicId: string, options: Parameters<typeof makeKey>[2] = {}) => makeKey(t.db, clinicId, options);
  const keys = {
    secret: await key(CALLER),
    readOnly: await key(CALLER, { scopes: ['read'] }),
    publishable: await key(CALLER, { kind: 'publishable', scopes: ['read', 'write'] }),
    aiConnector: await key(CALLER, { kind: 'ai_connector', scopes: ['read'] }),
    sandbox: await key(DEMO.clinics.sandbox, { isSandbox: true }),
  };
  // A key of the caller's that operations on its own ids may revoke (the suite's keys are reserved).
  await key(CALLER, { name: 'spare' });
  const bystanderKey = await key(BYSTANDER);
  const bystanderPublishable = await key(BYSTANDER, { kind: 'publishable', scopes: ['read', 'write'] });
  await addClinicExtras(t, CALLER, keys.secret.raw, keys.publishable.raw);
  await addClinicExtras(t, BYSTANDER, bystanderKey.raw, bystanderPublishable.raw);
  await addBystanderOnlyRows(t.db, BYSTANDER);
  const signIn = await t.request('/auth/signin', { body: { email: 'owner@demo-clinic.test', password: DEMO_PASSWORD } });
  if (signIn.status !== 200) throw new Error(`signing in the demo owner: ${signIn.status} ${await signIn.text()}`);
  const token = (await signIn.json()).data.token as string;
  await t.flush();
  const keyIds = Object.values(keys).map((k) => k.row.id);
  return {
    caller: {
      clinicId: CALLER,
      ownerId: DEMO.users.demoOwner,
      credentials: {
        secret: keys.secret.raw,
        readOnly: keys.readOnly.raw,
        publishable: keys.publishable.raw,
        aiConnector: keys.aiConnector.raw,
        sandbox: keys.sandbox.raw,
        token,
      },
      keyIds,
    },
    bystander: { clinicId: BYSTANDER },
    reservedIds: new Set([...keyIds, DEMO.users.demoOwner]),
  };
}

/**
 * Undoes what a fuzzed request may do to the caller's own access (a key revoked, the owner demoted or
 * deactivated, the plan cancelled or changed, the sandbox taken live), so the next operation is reached
 * with the same credentials. Touches only the caller's and the sandbox clinic's rows.
 */
export async function restoreAccess(db: Database, world: TwoClinics): Promise<void> {
  const keyIds = sql.join(
    world.caller.keyIds.map((id) => sql`${id}::uuid`),
    sql`, `,
  );
  await db.execute(sql`
    with keys as (update api_keys set revoked_at = null, expires_at = now() + interval '1 year' where id in (${keyIds})),
    owner as (update users set is_active = true, role = 'owner' where id = ${world.caller.ownerId}),
    sandbox as (
      update clinics set mode = 'sandbox', is_active = true, deactivated_at = null, deactivated_reason = null,
        sandbox_expires_at = now() + interval '30 days'
      where id = ${DEMO.clinics.sandbox}
    )
    update clinics set is_active = true, deactivated_at = null, deactivated_reason = null, plan_id = ${DEMO.plans.growth}
    where id = ${world.caller.clinicId}`);
}

/** The credentials a route is meant to be called with (request headers for t.request's key/token). */
export function properCredentials(world: TwoClinics, access: RouteAccess): { key?: string; token?: string } {
  const c = world.caller.credentials;
  if (access.auth === 'jwt') return { token: c.token };
  if (access.auth === 'public') return {};
  if (access.sandbox === 'only') return { key: c.sandbox };
  return { key: c.secret };
}
