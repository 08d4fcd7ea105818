// Per live demo clinic: legacy treatments and the brand's selections of them (one kept inactive),
// which global product each intake form is for, notifications (read and unread, pointing at seeded
// orders by id), intake requests in several states and teleform removals (scheduled, cancelled,
// completed). Demo Clinic (plan with CRM Connect) also gets a HubSpot connection whose fake API key is
// encrypted at seed time with the development data key; Harbor Clinic (no CRM Connect) gets none.
import { inArray } from 'drizzle-orm';
import {
  brandTreatments,
  crmConnections,
  formGlobalProducts,
  intakeRequests,
  notifications,
  teleformRemovals,
  treatments,
} from '../../drizzle/schema';
import { DEVELOPMENT_ROOT_SECRET_KEY } from '../../src/config';
import { credentialHintFor, encryptCrmCredentials } from '../../src/modules/crm';
import type { Database } from '../../src/platform/db/client';
import { seedGlobalProductId, seedQuestionnaireId } from './catalog';
import { CRM_BLOCKS, DEMO, demoId, LIVE_DEMO_CLINICS, STOREFRONT_BLOCKS as S } from './ids';
import { seedOrderId } from './orders';
import { refresh } from './upsert';

const DAY = 86_400_000;
const HOUR = 3_600_000;

export const seedTreatmentId = (clinicIndex: number, n: number) => demoId(S.treatments, clinicIndex * 100 + n);
const seedBrandTreatmentId = (clinicIndex: number, n: number) => demoId(S.brandTreatments, clinicIndex * 100 + n);

/** The Demo Clinic's fake HubSpot private-app token (development only; never shown by the API). */
export const SEED_CRM_API_KEY = 'pat-na1-d3m0c1in-1c00-4000-8000-00000000f3a7';

interface SeedTreatment {
  n: number;
  name: string;
  slug: string;
  description: string;
  color: string;
  priceCents: number | null;
  logo: string | null;
  isActive: boolean;
  daysAgo: number;
  /** The brand's selection: active, inactive (kept, not offered), or none. */
  selection: 'active' | 'inactive' | null;
}

const TREATMENTS: SeedTreatment[][] = [
  [
    {
      n: 1,
      name: 'Medical Weight Loss',
      slug: 'medical-weight-loss',
      description: 'GLP-1 programs with monthly provider check-ins',
      color: '#2F6FED',
      priceCents: 24_900,
      logo: 'https://assets.demo-clinic.example/treatments/weight-loss.png',
      isActive: true,
      daysAgo: 120,
      selection: 'active',
    },
    {
      n: 2,
      name: "Men's Health",
      slug: 'mens-health',
      description: 'Testosterone therapy and ongoing lab monitoring',
      color: '#0F766E',
      priceCents: 14_900,
      logo: 'https://assets.demo-clinic.example/treatments/mens-health.png',
      isActive: true,
      daysAgo: 110,
      selection: 'active',
    },
    {
      n: 3,
      name: 'Hair Restoration',
      slug: 'hair-restoration',
      description: 'Finasteride and minoxidil, shipped every quarter',
      color: '#7C3AED',
      priceCents: 5_900,
      logo: null,
      isActive: true,
      daysAgo: 90,
      selection: 'active',
    },
    {
      n: 4,
      name: 'Sexual Wellness',
      slug: 'sexual-wellness',
      description: 'Discreet prescriptions after an online visit',
      color: '#DB2777',
      priceCents: 4_900,
      logo: null,
      isActive: true,
      daysAgo: 60,
      selection: 'inactive',
    },
    {
      n: 5,
      name: 'Longevity',
      slug: 'longevity',
      description: 'NAD+ and sermorelin protocols (coming soon)',
      color: '#CA8A04',
      priceCents: null,
      logo: null,
      isActive: false,
      daysAgo: 20,
      selection: null,
    },
  ],
  [
    {
      n: 1,
      name: 'Weight Management',
      slug: 'weight-management',
      description: 'Tirzepatide and semaglutide with dietitian support',
      color: '#0369A1',
      priceCents: 29_900,
      logo: 'https://assets.harbor-clinic.example/treatments/weight.png',
      isActive: true,
      daysAgo: 100,
      selection: 'active',
    },
    {
      n: 2,
      name: 'Hormone Balance',
      slug: 'hormone-balance',
      description: 'Estradiol and testosterone for every stage of life',
      color: '#BE185D',
      priceCents: 12_900,
      logo: null,
      isActive: true,
      daysAgo: 80,
      selection: 'active',
    },
    {
      n: 3,
      name: 'Clear Skin',
      slug: 'clear-skin',
      description: 'Tretinoin plans prescribed by dermatology providers',
      color: '#059669',
      priceCents: 3_900,
      logo: null,
      isActive: true,
      daysAgo: 45,
      selection: null,
    },
  ],
];

/** [questionnaire i, global product n] per clinic: which product each intake form is for. */
const FORM_LINKS: [number, number][][] = [
  [
    [1, 1],
    [2, 5],
  ], // Weight-loss intake -> Semaglutide Injection; Hormone intake -> Testosterone Cypionate
  [
    [1, 2],
    [2, 6],
  ], // Weight-loss intake -> Tirzepatide Injection; Hormone intake -> Estradiol Cream
];

/** n, type, title, body, data (ids only), hours ago, read hours ago (null: unread). */
type SeedNotification = [number, string, string, string, Record<string, unknown>, number, number | null];
const notificationsFor = (c: number): SeedNotification[] => [
  [1, 'order', 'New order placed', 'A new order is waiting for provider review.', { orderId: seedOrderId(c, 1) }, 2, null],
  [2, 'order', 'Order shipped', 'An order left the pharmacy and has tracking.', { orderId: seedOrderId(c, 2) }, 9, null],
  [
    3,
    'payment',
    'Payment failed',
    'A renewal charge was declined; the patient has been asked to update their card.',
    { orderId: seedOrderId(c, 3) },
    20,
    null,
  ],
  [
    4,
    'refund',
    'Refund request received',
    'A patient asked for a refund; approve or deny it from the refunds list.',
    { orderId: seedOrderId(c, 4) },
    30,
    26,
  ],
  [5, 'payout', 'Payout sent', 'Your weekly payout is on its way to your bank account.', {}, 72, 70],
  [6, 'system', 'Pharmacy price change', 'A pharmacy changed the price of a product you sell; review your margins.', {}, 96, null],
  [7, 'system', 'Intake form ready', 'The intake form you requested is live on your storefront.', {}, 240, 230],
  [8, 'order', 'Order delivered', 'An order was delivered to the patient.', { orderId: seedOrderId(c, 5) }, 300, 290],
];

/** n, treatment name, notes, status, asked by the owner (else with a key), days ago. */
const INTAKE_REQUESTS: [number, string, string | null, 'pending' | 'in_review' | 'completed' | 'declined', boolean, number][] = [
  [1, 'Peptide therapy', 'Sermorelin and BPC-157; include a contraindications screen.', 'pending', false, 3],
  [2, 'Migraine prevention', 'Monthly CGRP plans; ask about frequency and prior treatments.', 'in_review', true, 12],
  [3, 'Hair loss (women)', null, 'completed', true, 40],
  [4, 'Compounded ketamine', 'For at-home use.', 'declined', false, 55],
];

export async function seedBrandContent(db: Database, now: Date): Promise<void> {
  const at = (msFromNow: number) => new Date(now.getTime() + msFromNow);
  const owners = [DEMO.users.demoOwner, DEMO.users.harborOwner];

  // Treatments. A slug a developer has since given to a treatment of their own stays theirs: that
  // demo treatment (and its selection) is skipped.
  const treatmentRows: (typeof treatments.$inferInsert)[] = LIVE_DEMO_CLINICS.flatMap((clinicId, c) =>
    TREATMENTS[c]!.map((x) => ({
      id: seedTreatmentId(c, x.n),
      clinicId,
      name: x.name,
      slug: x.slug,
      description: x.description,
      brandColor: x.color,
      logoUrl: x.logo,
      productsPriceCents: x.priceCents,
      isActive: x.isActive,
      createdAt: at(-x.daysAgo * DAY),
      updatedAt: at(-x.daysAgo * DAY),
    })),
  );
  const taken = await db
    .select({ id: treatments.id, clinicId: treatments.clinicId, slug: treatments.slug })
    .from(treatments)
    .where(inArray(treatments.clinicId, [...LIVE_DEMO_CLINICS]));
  const slugTakenByOther = (row: typeof treatments.$inferInsert) =>
    taken.some((t) => t.clinicId === row.clinicId && t.slug === row.slug && t.id !== row.id);
  const wanted = treatmentRows.filter((row) => !slugTakenByOther(row));
  if (wanted.length) {
    await db
      .insert(treatments)
      .values(wanted)
      .onConflictDoUpdate({
        target: treatments.id,
        set: refresh(['name', 'slug', 'description', 'brandColor', 'logoUrl', 'productsPriceCents', 'isActive', 'createdAt', 'updatedAt']),
      });
  }
  const present = new Set(wanted.map((row) => row.id));
  const selections: (typeof brandTreatments.$inferInsert)[] = LIVE_DEMO_CLINICS.flatMap((clinicId, c) =>
    TREATMENTS[c]!.filter((x) => x.selection && present.has(seedTreatmentId(c, x.n))).map((x) => ({
      id: seedBrandTreatmentId(c, x.n),
      clinicId,
      treatmentId: seedTreatmentId(c, x.n),
      isActive: x.selection === 'active',
      createdAt: at(-(x.daysAgo - 1) * DAY),
    })),
  );
  // (clinic, treatment) is unique too: a selection the developer re-made under another id is left as it is.
  if (selections.length) await db.insert(brandTreatments).values(selections).onConflictDoNothing();

  // Form -> global product links (one product per form; a form the developer linked otherwise stays so).
  await db
    .insert(formGlobalProducts)
    .values(
      LIVE_DEMO_CLINICS.flatMap((clinicId, c) =>
        FORM_LINKS[c]!.map(([q, p], k) => ({
          id: demoId(S.formGlobalProducts, c * 100 + k + 1),
          clinicId,
          questionnaireId: seedQuestionnaireId(c, q),
          globalProductId: seedGlobalProductId(p),
          createdAt: at(-(100 - k) * DAY),
        })),
      ),
    )
    .onConflictDoNothing();

  await db
    .insert(notifications)
    .values(
      LIVE_DEMO_CLINICS.flatMap((clinicId, c) =>
        notificationsFor(c).map(([n, type, title, body, data, hoursAgo, readHoursAgo]) => ({
          id: demoId(S.notifications, c * 100 + n),
          clinicId,
          type,
          title,
          body,
          data,
          readAt: readHoursAgo === null ? null : at(-readHoursAgo * HOUR),
          createdAt: at(-hoursAgo * HOUR),
        })),
      ),
    )
    .onConflictDoUpdate({ target: notifications.id, set: refresh(['type', 'title', 'body', 'data', 'readAt', 'createdAt']) });

  await db
    .insert(intakeRequests)
    .values(
      LIVE_DEMO_CLINICS.flatMap((clinicId, c) =>
        INTAKE_REQUESTS.map(([n, treatmentName, notes, status, byOwner, daysAgo]) => ({
          id: demoId(S.intakeRequests, c * 100 + n),
          clinicId,
          treatmentName,
          notes,
          status,
          requestedByUserId: byOwner ? owners[c]! : null,
          createdAt: at(-daysAgo * DAY),
          updatedAt: at(-Math.max(daysAgo - 2, 0) * DAY),
        })),
      ),
    )
    .onConflictDoUpdate({
      target: intakeRequests.id,
      set: refresh(['treatmentName', 'notes', 'status', 'requestedByUserId', 'createdAt', 'updatedAt']),
    });

  // Removals: the hormone intake is due to come off in ten days; removing the weight-loss intake was
  // cancelled; an earlier removal of it completed (the form was restored afterwards).
  await db
    .insert(teleformRemovals)
    .values(
      LIVE_DEMO_CLINICS.flatMap((clinicId, c) => [
        {
          id: demoId(S.teleformRemovals, c * 100 + 1),
          clinicId,
          questionnaireId: seedQuestionnaireId(c, 2),
          reason: 'Moving hormone patients to the new combined intake',
          status: 'scheduled' as const,
          scheduledFor: at(10 * DAY),
          cancelReason: null,
          cancelledAt: null,
          completedAt: null,
          createdAt: at(-2 * DAY),
          updatedAt: at(-2 * DAY),
        },
        {
          id: demoId(S.teleformRemovals, c * 100 + 2),
          clinicId,
          questionnaireId: seedQuestionnaireId(c, 1),
          reason: 'Pausing weight-loss enrollments',
          status: 'cancelled' as const,
          scheduledFor: at(-5 * DAY),
          cancelReason: 'Supply is back; keep enrolling',
          cancelledAt: at(-9 * DAY),
          completedAt: null,
          createdAt: at(-14 * DAY),
          updatedAt: at(-9 * DAY),
        },
        {
          id: demoId(S.teleformRemovals, c * 100 + 3),
          clinicId,
          questionnaireId: seedQuestionnaireId(c, 1),
          reason: 'Seasonal pause',
          status: 'completed' as const,
          scheduledFor: at(-60 * DAY),
          cancelReason: null,
          cancelledAt: null,
          completedAt: at(-60 * DAY),
          createdAt: at(-75 * DAY),
          updatedAt: at(-60 * DAY),
        },
      ]),
    )
    .onConflictDoUpdate({
      target: teleformRemovals.id,
      set: refresh([
        'questionnaireId',
        'reason',
        'status',
        'scheduledFor',
        'cancelReason',
        'cancelledAt',
        'completedAt',
        'createdAt',
        'updatedAt',
      ]),
    });

  // Demo Clinic's CRM connection (one per clinic: a connection the developer made stays theirs).
  const demo = DEMO.clinics.demo;
  await db
    .insert(crmConnections)
    .values({
      id: demoId(CRM_BLOCKS.crmConnections, 1),
      clinicId: demo,
      provider: 'hubspot',
      authType: 'api_key',
      encryptedCredentials: await encryptCrmCredentials({ apiKey: SEED_CRM_API_KEY }, demo, DEVELOPMENT_ROOT_SECRET_KEY),
      credentialHint: credentialHintFor(SEED_CRM_API_KEY),
      accountName: 'Demo Clinic (HubSpot)',
      phiSyncEnabled: true,
      baaAttestedAt: at(-30 * DAY),
      connectedAt: at(-45 * DAY),
      lastSyncedAt: at(-1 * HOUR),
      createdAt: at(-45 * DAY),
      updatedAt: at(-30 * DAY),
    })
    .onConflictDoNothing();
}
