// The platform's shared catalogues (pharmacies, global products and coverages, program templates,
// titration protocols, form structures) and, per live demo clinic, its patients and questionnaires.

import {
  type CoverageRole,
  formStructures,
  globalProducts,
  patients,
  pharmacies,
  pharmacyCoverages,
  programTemplateProducts,
  programTemplates,
  questionnaires,
  titrationProtocols,
} from '../../drizzle/schema';
import type { Database } from '../../src/platform/db/client';
import { DEMO_BLOCKS as B, demoId, LIVE_DEMO_CLINICS } from './ids';
import { refresh } from './upsert';

/** Upsert by id: a re-seed puts the demo row back as written here. */

export const SEED_PHARMACIES = [
  { id: demoId(B.pharmacies, 1), name: 'Northside Compounding', slug: 'northside-compounding' },
  { id: demoId(B.pharmacies, 2), name: 'Lakeview Pharmacy', slug: 'lakeview-pharmacy' },
  { id: demoId(B.pharmacies, 3), name: 'Summit Rx', slug: 'summit-rx' },
];

/** n, name, categories, pharmacy price (cents), pack months, vials, supply days, cooler, prepay, discontinued. */
const PRODUCTS: [number, string, string[], number, number, number, number, boolean, boolean, boolean][] = [
  [1, 'Semaglutide Injection', ['weight_loss'], 12_900, 1, 1, 28, true, true, false],
  [2, 'Tirzepatide Injection', ['weight_loss'], 19_900, 1, 1, 28, true, true, false],
  [3, 'Semaglutide 3-Month Pack', ['weight_loss'], 34_500, 3, 3, 84, true, true, false],
  [4, 'Liraglutide Pen', ['weight_loss'], 9_900, 1, 2, 30, true, false, true], // discontinued, still used
  [5, 'Testosterone Cypionate', ['hormone', 'mens_health'], 4_500, 1, 1, 30, false, true, false],
  [6, 'Estradiol Cream', ['hormone', 'womens_health'], 3_900, 1, 1, 30, false, false, false],
  [7, 'Finasteride Tablets', ['hair', 'mens_health'], 1_500, 3, 1, 90, false, true, false],
  [8, 'Minoxidil Solution', ['hair'], 2_200, 1, 1, 30, false, false, false],
  [9, 'Tretinoin Cream', ['skin'], 2_800, 1, 1, 45, false, false, false],
  [10, 'Sildenafil Tablets', ['sexual_health', 'mens_health'], 1_900, 1, 1, 30, false, true, false],
  [11, 'NAD+ Injection', ['longevity'], 14_900, 1, 1, 30, true, false, false],
  [12, 'Sermorelin Injection', ['longevity', 'hormone'], 11_900, 1, 1, 30, true, false, false],
  [13, 'Metformin ER Tablets', ['longevity', 'weight_loss'], 1_200, 3, 1, 90, false, true, false],
  [14, 'Oxytocin Nasal Spray', ['sexual_health', 'womens_health'], 5_900, 1, 1, 30, true, false, false],
];

export const seedGlobalProductId = (n: number) => demoId(B.globalProducts, n);
export const SEED_DISCONTINUED_PRODUCT = seedGlobalProductId(4);

export const SEED_TEMPLATES = {
  weightLoss: demoId(B.templates, 1),
  mensHealth: demoId(B.templates, 2),
  hair: demoId(B.templates, 3),
};

export const SEED_TITRATION = { semaglutide: demoId(B.titrationProtocols, 1), tirzepatide: demoId(B.titrationProtocols, 2) };

export const SEED_PATIENTS_PER_CLINIC = 40;
/** Patient i (1..40) of live demo clinic c (0: Demo, 1: Harbor). */
export const seedPatientId = (clinicIndex: number, i: number) => demoId(B.patients, clinicIndex * 1000 + i);
export const seedQuestionnaireId = (clinicIndex: number, i: number) => demoId(B.questionnaires, clinicIndex * 100 + i);

const FIRST = [
  'Ava',
  'Ben',
  'Cora',
  'Dev',
  'Elin',
  'Finn',
  'Gia',
  'Hal',
  'Ines',
  'Jon',
  'Kai',
  'Lena',
  'Milo',
  'Nora',
  'Owen',
  'Pia',
  'Quin',
  'Rosa',
  'Sami',
  'Tess',
];
const LAST = ['Alder', 'Brook', 'Castro', 'Dunn', 'Ellis', 'Flores', 'Grant', 'Hughes', 'Ito', 'Jensen'];

export async function seedCatalog(db: Database, now: Date): Promise<void> {
  await db
    .insert(pharmacies)
    .values(SEED_PHARMACIES)
    .onConflictDoUpdate({ target: pharmacies.id, set: refresh(['name', 'slug']) });

  await db
    .insert(globalProducts)
    .values(
      PRODUCTS.map(([n, name, categories, price, pack, vials, supply, cooler, prepay, discontinued]) => ({
        id: seedGlobalProductId(n),
        name,
        slug: name
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, '-')
          .replace(/(^-|-$)/g, ''),
        categories,
        description: `${name} from the platform catalogue.`,
        pharmacyBasePriceCents: price,
        packDurationMonths: pack,
        vialsPerPack: vials,
        supplyDays: supply,
        requiresCooler: cooler,
        allowPrepay: prepay,
        isDiscontinued: discontinued,
      })),
    )
    .onConflictDoUpdate({
      target: globalProducts.id,
      set: refresh([
        'name',
        'slug',
        'categories',
        'description',
        'pharmacyBasePriceCents',
        'packDurationMonths',
        'vialsPerPack',
        'supplyDays',
        'requiresCooler',
        'allowPrepay',
        'isDiscontinued',
      ]),
    });

  // Every product has a primary pharmacy; every third one a backup too.
  const coverages = PRODUCTS.flatMap(([n, name, , price]) => {
    const primary = SEED_PHARMACIES[n % 3]!;
    const rows = [
      {
        id: demoId(B.coverages, n * 10 + 1),
        globalProductId: seedGlobalProductId(n),
        pharmacyId: primary.id,
        role: 'primary' as CoverageRole,
        customName: name,
        priceCents: price,
      },
    ];
    if (n % 3 === 0) {
      const backup = SEED_PHARMACIES[(n + 1) % 3]!;
      rows.push({
        id: demoId(B.coverages, n * 10 + 2),
        globalProductId: seedGlobalProductId(n),
        pharmacyId: backup.id,
        role: 'backup',
        customName: `${name} (backup)`,
        priceCents: price + 500,
      });
    }
    return rows;
  });
  await db
    .insert(pharmacyCoverages)
    .values(coverages)
    .onConflictDoUpdate({ target: pharmacyCoverages.id, set: refresh(['role', 'customName', 'priceCents']) });

  await db
    .insert(programTemplates)
    .values([
      {
        id: SEED_TEMPLATES.weightLoss,
        name: 'Medical Weight Loss',
        slug: 'medical-weight-loss',
        description: 'GLP-1 program with monthly check-ins.',
        nonMedicalServiceFeeCents: 4_900,
        version: 3,
      },
      {
        id: SEED_TEMPLATES.mensHealth,
        name: "Men's Health",
        slug: 'mens-health',
        description: 'Hormone and sexual-health care for men.',
        nonMedicalServiceFeeCents: 2_900,
        version: 1,
      },
      {
        id: SEED_TEMPLATES.hair,
        name: 'Hair Restoration',
        slug: 'hair-restoration',
        description: 'Prescription hair-loss treatment.',
        nonMedicalServiceFeeCents: 0,
        version: 2,
      },
    ])
    .onConflictDoUpdate({
      target: programTemplates.id,
      set: refresh(['name', 'slug', 'description', 'nonMedicalServiceFeeCents', 'version']),
    });

  const templateProducts: [string, number, number, number][] = [
    [SEED_TEMPLATES.weightLoss, 1, 1, 9_900],
    [SEED_TEMPLATES.weightLoss, 2, 2, 12_900],
    [SEED_TEMPLATES.weightLoss, 3, 3, 19_900],
    [SEED_TEMPLATES.weightLoss, 13, 4, 2_900],
    [SEED_TEMPLATES.mensHealth, 5, 1, 5_900],
    [SEED_TEMPLATES.mensHealth, 10, 2, 2_900],
    [SEED_TEMPLATES.hair, 7, 1, 2_500],
    [SEED_TEMPLATES.hair, 8, 2, 1_900],
  ];
  await db
    .insert(programTemplateProducts)
    .values(
      templateProducts.map(([templateId, n, order, fee], i) => ({
        id: demoId(B.templateProducts, i + 1),
        templateId,
        globalProductId: seedGlobalProductId(n),
        displayOrder: order,
        programBaseFeeCents: fee,
      })),
    )
    .onConflictDoUpdate({ target: programTemplateProducts.id, set: refresh(['displayOrder', 'programBaseFeeCents']) });

  await db
    .insert(titrationProtocols)
    .values([
      {
        id: SEED_TITRATION.semaglutide,
        name: 'Semaglutide standard escalation',
        description: 'Four-week steps to 2.4 mg.',
        maxLevel: 5,
        levels: [
          { level: 1, dose: '0.25 mg', weeks: 4 },
          { level: 2, dose: '0.5 mg', weeks: 4 },
          { level: 3, dose: '1 mg', weeks: 4 },
          { level: 4, dose: '1.7 mg', weeks: 4 },
          { level: 5, dose: '2.4 mg', weeks: 0 },
        ],
      },
      {
        id: SEED_TITRATION.tirzepatide,
        name: 'Tirzepatide standard escalation',
        description: 'Four-week steps to 15 mg.',
        maxLevel: 6,
        levels: [
          { level: 1, dose: '2.5 mg', weeks: 4 },
          { level: 2, dose: '5 mg', weeks: 4 },
          { level: 3, dose: '7.5 mg', weeks: 4 },
          { level: 4, dose: '10 mg', weeks: 4 },
          { level: 5, dose: '12.5 mg', weeks: 4 },
          { level: 6, dose: '15 mg', weeks: 0 },
        ],
      },
    ])
    .onConflictDoUpdate({ target: titrationProtocols.id, set: refresh(['name', 'description', 'levels', 'maxLevel']) });

  await db
    .insert(formStructures)
    .values([
      {
        id: demoId(B.formStructures, 1),
        name: 'Weight-loss intake',
        slug: 'weight-loss-intake',
        category: 'intake',
        structure: { steps: ['goals', 'history', 'medications', 'consent'] },
      },
      {
        id: demoId(B.formStructures, 2),
        name: 'Hormone intake',
        slug: 'hormone-intake',
        category: 'intake',
        structure: { steps: ['symptoms', 'labs', 'history', 'consent'] },
      },
      {
        id: demoId(B.formStructures, 3),
        name: 'Monthly check-in',
        slug: 'monthly-check-in',
        category: 'follow_up',
        structure: { steps: ['progress', 'side_effects'] },
      },
    ])
    .onConflictDoUpdate({ target: formStructures.id, set: refresh(['name', 'slug', 'category', 'structure']) });

  for (const [c, clinicId] of LIVE_DEMO_CLINICS.entries()) {
    const domain = c === 0 ? 'demo-patients.test' : 'harbor-patients.test';
    await db
      .insert(patients)
      .values(
        Array.from({ length: SEED_PATIENTS_PER_CLINIC }, (_, k) => {
          const i = k + 1;
          const firstName = FIRST[k % FIRST.length]!;
          const lastName = LAST[(k * 7 + c) % LAST.length]!;
          return {
            id: seedPatientId(c, i),
            clinicId,
            firstName,
            lastName,
            email: `${firstName}.${lastName}.${i}@${domain}`.toLowerCase(),
            phoneNumber: `+1555${String(c * 1000 + i).padStart(7, '0')}`,
            lastLoginAt: i % 4 === 0 ? null : new Date(now.getTime() - i * 86_400_000),
            createdAt: new Date(now.getTime() - (120 - i) * 86_400_000),
          };
        }),
      )
      .onConflictDoUpdate({ target: patients.id, set: refresh(['firstName', 'lastName', 'email', 'phoneNumber']) });

    await db
      .insert(questionnaires)
      .values([
        { id: seedQuestionnaireId(c, 1), clinicId, name: 'Weight-loss intake', formStructureId: demoId(B.formStructures, 1) },
        { id: seedQuestionnaireId(c, 2), clinicId, name: 'Hormone intake', formStructureId: demoId(B.formStructures, 2) },
      ])
      .onConflictDoUpdate({ target: questionnaires.id, set: refresh(['name', 'formStructureId']) });
  }
}
