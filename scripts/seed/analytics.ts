// Demo data behind the analytics (docs/analytics.md, "Demo data"), for both live clinics:
//
// - Intake-form sessions over the last 8 weeks on the clinic's two questionnaires (catalog seed):
//   Weight-loss intake (6 steps, for programs 1 and 2) and Hormone intake (5 steps, for program 5 or
//   opened without a program). Realistic funnels: each step is passed with a fixed probability, most
//   sessions that reach the last step complete, the rest are abandoned (abandonedAt 24 hours after
//   they started, as the sweep would have marked them) or, within the last 24 hours, still started.
//   Most sessions belong to a seeded patient, some were opened anonymously.
// - Likes of the clinic's tenant products by its 40 patients (one per patient and product at most),
//   popular products liked by more patients, spread over the last 8 weeks.
//
// Deterministic (a seeded pseudo-random generator) and idempotent: fixed ids, insert ... on conflict do
// nothing. Rows are never refreshed: a session the abandonment sweep has marked stays abandoned, so
// re-seeding never makes it record intake.abandoned twice. No outbox events are written for seeded
// sessions (they are history, not news).
//
// Ids: session k of clinic c = demoId(STOREFRONT_BLOCKS.formSessions, c*10000 + k); the like of
// tenant product n by patient i = demoId(STOREFRONT_BLOCKS.likes, c*100000 + n*100 + i).

import { type FormSessionStatus, formSessions, productLikes } from '../../drizzle/schema';
import type { Database } from '../../src/platform/db/client';
import { SEED_PATIENTS_PER_CLINIC, seedPatientId, seedQuestionnaireId } from './catalog';
import { demoId, LIVE_DEMO_CLINICS, STOREFRONT_BLOCKS as S } from './ids';
import { seedProgramId, seedTenantProductId } from './programs';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** How far back the demo sessions and likes go. */
export const SEED_ANALYTICS_DAYS = 56;
/** Sessions per live clinic (Demo, Harbor). */
export const SEED_SESSIONS_PER_CLINIC = [140, 90] as const;

export const seedFormSessionId = (clinicIndex: number, k: number) => demoId(S.formSessions, clinicIndex * 10_000 + k);
export const seedLikeId = (clinicIndex: number, n: number, i: number) => demoId(S.likes, clinicIndex * 100_000 + n * 100 + i);

/** mulberry32: a small deterministic generator, so every seed run makes the same rows. */
function generator(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface SeedForm {
  q: number;
  totalSteps: number;
  /** Chance of going on from one step to the next. */
  passRate: number;
  /** Chance of completing once the last step is reached. */
  completeRate: number;
  /** Share of the clinic's sessions. */
  share: number;
  /** Programs the sessions are for (null: opened without one), chosen in turn. */
  programs: (number | null)[];
}

const FORMS: SeedForm[] = [
  { q: 1, totalSteps: 6, passRate: 0.86, completeRate: 0.92, share: 0.65, programs: [1, 1, 1, 2] },
  { q: 2, totalSteps: 5, passRate: 0.8, completeRate: 0.88, share: 0.35, programs: [5, 5, null] },
];

/** Tenant products (global product n) and the chance a patient likes each. */
const LIKE_RATES: [number, number][] = [
  [1, 0.45],
  [2, 0.35],
  [3, 0.3],
  [4, 0.1],
  [5, 0.15],
  [6, 0.12],
  [7, 0.2],
  [8, 0.1],
  [9, 0.18],
  [10, 0.05],
  [11, 0.08],
  [12, 0.04],
  [13, 0.22],
];

export async function seedAnalytics(db: Database, now: Date): Promise<void> {
  for (const [c, clinicId] of LIVE_DEMO_CLINICS.entries()) {
    const random = generator(0x5eed + c * 7919);
    const sessions: (typeof formSessions.$inferInsert)[] = [];
    const total = SEED_SESSIONS_PER_CLINIC[c]!;
    for (let k = 1; k <= total; k++) {
      const form = random() < FORMS[0]!.share ? FORMS[0]! : FORMS[1]!;
      // More sessions recently: the age is skewed towards now.
      const ageMs = Math.floor(random() ** 1.3 * SEED_ANALYTICS_DAYS * DAY);
      const startedAt = new Date(now.getTime() - ageMs);
      let step = 1;
      while (step < form.totalSteps && random() < form.passRate) step++;
      const completes = step === form.totalSteps && random() < form.completeRate;
      const recent = ageMs < 24 * HOUR;
      const status: FormSessionStatus = completes ? 'completed' : recent ? 'started' : 'abandoned';
      const program = form.programs[k % form.programs.length]!;
      const patient = random() < 0.8 ? 1 + Math.floor(random() * SEED_PATIENTS_PER_CLINIC) : null;
      sessions.push({
        id: seedFormSessionId(c, k),
        clinicId,
        questionnaireId: seedQuestionnaireId(c, form.q),
        programId: program === null ? null : seedProgramId(c, program),
        patientId: patient === null ? null : seedPatientId(c, patient),
        status,
        lastStepReached: step,
        totalSteps: form.totalSteps,
        startedAt,
        completedAt: status === 'completed' ? new Date(startedAt.getTime() + (4 + step * 3) * 60_000) : null,
        abandonedAt: status === 'abandoned' ? new Date(startedAt.getTime() + 24 * HOUR + 15 * 60_000) : null,
      });
    }
    // A session that started minutes ago cannot have finished after now: clamp those times to now.
    for (const s of sessions) {
      if (s.completedAt && s.completedAt > now) s.completedAt = now;
      if (s.abandonedAt && s.abandonedAt > now) s.abandonedAt = now;
    }
    await db.insert(formSessions).values(sessions).onConflictDoNothing();

    const likes: (typeof productLikes.$inferInsert)[] = [];
    for (const [n, rate] of LIKE_RATES) {
      for (let i = 1; i <= SEED_PATIENTS_PER_CLINIC; i++) {
        if (random() >= rate) continue;
        likes.push({
          id: seedLikeId(c, n, i),
          clinicId,
          tenantProductId: seedTenantProductId(c, n),
          patientId: seedPatientId(c, i),
          createdAt: new Date(now.getTime() - Math.floor(random() * SEED_ANALYTICS_DAYS * DAY)),
        });
      }
    }
    await db.insert(productLikes).values(likes).onConflictDoNothing();
  }
}
