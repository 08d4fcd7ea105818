// Per live demo clinic: the six demo programs, their products priced through every fee source, the
// clinic's tenant products (facilitation and placeholder fees), one titration attachment, and
// enrollments for all 40 seeded patients (charge and net amounts from the pricing function).
//
//   1 Medical Weight Loss  live, from its template (current): sellable products, enrolled patients (DELETE: 409)
//   2 GLP-1 Essentials     live: uses the discontinued product 4 (and patients are on it)
//   3 Longevity            draft: one product without any price (unpriced)
//   4 Hair Restoration     paused, from its template one version behind; paused enrollments (DELETE: retired)
//   5 Men's Health         draft, from its template
//   6 Skin Care            live, no patients (DELETE: removed)
//
// Ids: program i of clinic c = demoId(programs, c*100 + i); its k-th product demoId(programProducts,
// c*1000 + i*10 + k); tenant product of global product n demoId(tenantProducts, c*100 + n); enrollment
// of patient i demoId(enrollments, c*1000 + i).
import { inArray } from 'drizzle-orm';
import {
  type EnrollmentStatus,
  enrollments,
  globalProducts,
  type ProgramState,
  programProducts,
  programs,
  programTitrationProtocols,
  tenantProducts,
} from '../../drizzle/schema';
import { priceProduct } from '../../src/modules/catalog';
import type { Database } from '../../src/platform/db/client';
import { SEED_TEMPLATES, SEED_TITRATION, seedGlobalProductId, seedPatientId } from './catalog';
import { DEMO_BLOCKS as B, demoId, LIVE_DEMO_CLINICS } from './ids';
import { refresh } from './upsert';

const DAY = 86_400_000;

export const seedProgramId = (clinicIndex: number, i: number) => demoId(B.programs, clinicIndex * 100 + i);
export const seedTenantProductId = (clinicIndex: number, n: number) => demoId(B.tenantProducts, clinicIndex * 100 + n);

/** A product of a demo program: global product n, its base fee and the clinic override (cents). */
interface SeedProgramProduct {
  n: number;
  base: number | null;
  override: number | null;
  visible?: boolean;
  link: 'template' | 'program';
}

interface SeedProgram {
  i: number;
  names: [string, string]; // Demo clinic, Harbor clinic
  description: string;
  state: ProgramState;
  isActive: boolean;
  isFeatured: boolean;
  feeCents: number;
  accentColor: string;
  templateId: string | null;
  templateVersion: number | null;
  products: SeedProgramProduct[];
}

const PROGRAMS: SeedProgram[] = [
  {
    i: 1,
    names: ['Medical Weight Loss', 'Harbor Weight Care'],
    description: 'GLP-1 treatment with monthly provider check-ins.',
    state: 'live',
    isActive: true,
    isFeatured: true,
    feeCents: 4_900,
    accentColor: '#0F766E',
    templateId: SEED_TEMPLATES.weightLoss,
    templateVersion: 3,
    products: [
      { n: 1, base: 9_900, override: null, link: 'template' },
      { n: 2, base: 12_900, override: 13_900, link: 'template' },
      { n: 3, base: 19_900, override: null, link: 'template' },
      { n: 13, base: 2_900, override: null, link: 'template' },
    ],
  },
  {
    i: 2,
    names: ['GLP-1 Essentials', 'Harbor GLP-1 Basics'],
    description: 'Lower-cost GLP-1 options.',
    state: 'live',
    isActive: true,
    isFeatured: false,
    feeCents: 2_900,
    accentColor: '#1D4ED8',
    templateId: null,
    templateVersion: null,
    products: [
      { n: 4, base: 6_900, override: null, link: 'program' }, // discontinued, still used
      { n: 1, base: null, override: null, link: 'program' }, // tenant placeholder
      { n: 2, base: 12_900, override: null, link: 'program' },
    ],
  },
  {
    i: 3,
    names: ['Longevity', 'Harbor Longevity'],
    description: 'NAD+ and peptide therapy.',
    state: 'draft',
    isActive: false,
    isFeatured: false,
    feeCents: 0,
    accentColor: '#7C3AED',
    templateId: null,
    templateVersion: null,
    products: [
      { n: 11, base: 9_900, override: null, link: 'program' },
      { n: 12, base: null, override: null, link: 'program' }, // no fee anywhere: unpriced
    ],
  },
  {
    i: 4,
    names: ['Hair Restoration', 'Harbor Hair'],
    description: 'Prescription hair-loss treatment.',
    state: 'paused',
    isActive: false,
    isFeatured: false,
    feeCents: 0,
    accentColor: '#B45309',
    templateId: SEED_TEMPLATES.hair,
    templateVersion: 1,
    products: [
      { n: 7, base: 2_500, override: null, link: 'template' },
      { n: 8, base: 1_900, override: null, link: 'template' },
    ],
  },
  {
    i: 5,
    names: ["Men's Health", "Harbor Men's Health"],
    description: 'Hormone and sexual-health care for men.',
    state: 'draft',
    isActive: false,
    isFeatured: false,
    feeCents: 2_900,
    accentColor: '#334155',
    templateId: SEED_TEMPLATES.mensHealth,
    templateVersion: 1,
    products: [
      { n: 5, base: 5_900, override: null, link: 'template' },
      { n: 10, base: 2_900, override: null, link: 'template', visible: false },
    ],
  },
  {
    i: 6,
    names: ['Skin Care', 'Harbor Skin'],
    description: 'Prescription skin treatment.',
    state: 'live',
    isActive: true,
    isFeatured: false,
    feeCents: 1_900,
    accentColor: '#BE185D',
    templateId: null,
    templateVersion: null,
    products: [
      { n: 9, base: 3_500, override: 3_900, link: 'program' },
      { n: 6, base: null, override: null, link: 'program' }, // tenant placeholder
    ],
  },
];

/** Tenant products: global product n, facilitation fee, placeholder fee (cents). Harbor's fees are 10% higher. */
const TENANT_PRODUCTS: [number, number, number | null][] = [
  [1, 1_000, 8_900],
  [2, 1_000, null],
  [3, 1_500, null],
  [4, 1_000, 5_900],
  [5, 500, 4_900],
  [6, 500, 2_500],
  [7, 500, null],
  [8, 500, null],
  [9, 500, 3_000],
  [10, 500, null],
  [11, 1_000, null],
  [12, 1_000, null],
  [13, 500, 1_900],
];

/** Enrollments of patients 1..40: [first patient, last patient, program i, global product n, status]. */
const ENROLLMENTS: [number, number, number, number, EnrollmentStatus][] = [
  [1, 10, 1, 1, 'active'],
  [11, 16, 1, 2, 'active'],
  [17, 20, 1, 3, 'active'],
  [21, 24, 1, 13, 'active'],
  [25, 27, 1, 1, 'paused'],
  [28, 29, 1, 2, 'cancelled'],
  [30, 33, 2, 4, 'active'],
  [34, 35, 2, 2, 'active'],
  [36, 36, 2, 1, 'paused'],
  [37, 38, 4, 7, 'paused'],
  [39, 39, 4, 8, 'completed'],
  [40, 40, 2, 4, 'cancelled'],
];

export async function seedPrograms(db: Database, now: Date): Promise<void> {
  const catalogue = new Map(
    (
      await db
        .select({
          id: globalProducts.id,
          cost: globalProducts.pharmacyBasePriceCents,
          months: globalProducts.packDurationMonths,
          discontinued: globalProducts.isDiscontinued,
        })
        .from(globalProducts)
        .where(
          inArray(
            globalProducts.id,
            TENANT_PRODUCTS.map(([n]) => seedGlobalProductId(n)),
          ),
        )
    ).map((row) => [row.id, row]),
  );

  for (const [c, clinicId] of LIVE_DEMO_CLINICS.entries()) {
    const scale = (cents: number) => (c === 0 ? cents : Math.round(cents * 1.1));
    const tenant = new Map(
      TENANT_PRODUCTS.map(([n, facilitation, placeholder]) => [
        n,
        { facilitation: scale(facilitation), placeholder: placeholder === null ? null : scale(placeholder) },
      ]),
    );

    await db
      .insert(tenantProducts)
      .values(
        TENANT_PRODUCTS.map(([n]) => ({
          id: seedTenantProductId(c, n),
          clinicId,
          globalProductId: seedGlobalProductId(n),
          facilitationFeeCents: tenant.get(n)!.facilitation,
          placeholderFeeCents: tenant.get(n)!.placeholder,
          isActive: true,
        })),
      )
      .onConflictDoUpdate({
        target: [tenantProducts.clinicId, tenantProducts.globalProductId],
        set: refresh(['facilitationFeeCents', 'placeholderFeeCents', 'isActive']),
      });

    await db
      .insert(programs)
      .values(
        PROGRAMS.map((p) => ({
          id: seedProgramId(c, p.i),
          clinicId,
          name: p.names[c]!,
          description: p.description,
          state: p.state,
          isActive: p.isActive,
          isFeatured: p.isFeatured,
          nonMedicalServiceFeeCents: p.feeCents,
          accentColor: p.accentColor,
          templateId: p.templateId,
          templateVersion: p.templateVersion,
          retiredAt: null,
          createdAt: new Date(now.getTime() - (200 - p.i * 10) * DAY),
        })),
      )
      .onConflictDoUpdate({
        target: programs.id,
        set: refresh([
          'name',
          'description',
          'state',
          'isActive',
          'isFeatured',
          'nonMedicalServiceFeeCents',
          'accentColor',
          'templateId',
          'templateVersion',
          'retiredAt',
        ]),
      });

    await db
      .insert(programProducts)
      .values(
        PROGRAMS.flatMap((p) =>
          p.products.map((product, k) => ({
            id: demoId(B.programProducts, c * 1000 + p.i * 10 + k + 1),
            clinicId,
            programId: seedProgramId(c, p.i),
            globalProductId: seedGlobalProductId(product.n),
            displayOrder: k,
            isPatientVisible: product.visible ?? true,
            isActive: true,
            linkSource: product.link,
            programBaseFeeCents: product.base,
            clinicFeeOverrideCents: product.override,
          })),
        ),
      )
      .onConflictDoUpdate({
        target: [programProducts.programId, programProducts.globalProductId],
        set: refresh(['displayOrder', 'isPatientVisible', 'isActive', 'linkSource', 'programBaseFeeCents', 'clinicFeeOverrideCents']),
      });

    await db
      .insert(programTitrationProtocols)
      .values({
        id: demoId(B.programTitration, c * 100 + 1),
        clinicId,
        programId: seedProgramId(c, 1),
        titrationProtocolId: SEED_TITRATION.semaglutide,
        flatFeeCents: scale(2_500),
        allowedBillingMonths: [1, 3],
        position: 0,
      })
      .onConflictDoUpdate({
        target: programTitrationProtocols.id,
        set: refresh(['titrationProtocolId', 'flatFeeCents', 'allowedBillingMonths', 'position']),
      });

    // What a patient on (program, product) is charged each billing interval (one pack plus the
    // program's non-medical service fee) and what the clinic keeps (the resolved fee plus that fee).
    const amounts = (i: number, n: number) => {
      const program = PROGRAMS.find((p) => p.i === i)!;
      const product = program.products.find((p) => p.n === n)!;
      const gp = catalogue.get(seedGlobalProductId(n))!;
      const price = priceProduct({
        clinicFeeOverrideCents: product.override,
        programBaseFeeCents: product.base,
        tenantPlaceholderFeeCents: tenant.get(n)!.placeholder,
        pharmacyCostCents: gp.cost,
        facilitationFeeCents: tenant.get(n)!.facilitation,
        hasPharmacyCoverage: true,
        isActive: true,
        isDiscontinued: gp.discontinued,
      });
      return {
        billingIntervalMonths: gp.months,
        chargeAmountCents: price.displayPriceCents! + program.feeCents,
        netAmountCents: price.effectiveFeeCents! + program.feeCents,
      };
    };

    await db
      .insert(enrollments)
      .values(
        ENROLLMENTS.flatMap(([first, last, i, n, status]) =>
          Array.from({ length: last - first + 1 }, (_, k) => {
            const patient = first + k;
            const startedAt = new Date(now.getTime() - (150 - patient * 3) * DAY);
            const ended = status === 'cancelled' || status === 'completed';
            return {
              id: demoId(B.enrollments, c * 1000 + patient),
              clinicId,
              patientId: seedPatientId(c, patient),
              programId: seedProgramId(c, i),
              globalProductId: seedGlobalProductId(n),
              status,
              ...amounts(i, n),
              nextChargeAt: status === 'active' ? new Date(now.getTime() + (((patient * 7) % 28) + 1) * DAY) : null,
              startedAt,
              endedAt: ended ? new Date(now.getTime() - ((patient % 10) + 1) * DAY) : null,
            };
          }),
        ),
      )
      .onConflictDoUpdate({
        target: enrollments.id,
        set: refresh([
          'patientId',
          'programId',
          'globalProductId',
          'status',
          'billingIntervalMonths',
          'chargeAmountCents',
          'netAmountCents',
          'nextChargeAt',
          'startedAt',
          'endedAt',
        ]),
      });
  }
}
