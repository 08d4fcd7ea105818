// CRM contacts for both live demo clinics (the contacts are seedCatalog's patients): tags in a few
// categories (one inactive, still on a few contacts), assignments (Demo Clinic: 34 tagged contacts,
// Harbor Clinic: 20), a few opted-out contacts with their optOutDate, and the welcome emails of the
// newest contacts in the messages table. Message ids use n 1-99 of CRM_BLOCKS.messages per clinic
// (c * 1000 + n); the sequences seed takes other numbers of that block.
import { and, eq, inArray, notInArray, sql } from 'drizzle-orm';
import { clinics, messages, patients, patientTags, tags } from '../../drizzle/schema';
import { welcomeEmail } from '../../src/modules/crm';
import type { Database } from '../../src/platform/db/client';
import { seedPatientId } from './catalog';
import { CRM_BLOCKS as B, demoId, LIVE_DEMO_CLINICS } from './ids';
import { refresh } from './upsert';

const DAY = 86_400_000;

export const seedTagId = (clinicIndex: number, n: number) => demoId(B.tags, clinicIndex * 100 + n);
export const seedWelcomeMessageId = (clinicIndex: number, n: number) => demoId(B.messages, clinicIndex * 1000 + n);

/** n, name, category, color, description, isActive. */
const TAGS: [number, string, string, string, string, boolean][] = [
  [1, 'VIP', 'tier', '#d4af37', 'High-value patients; offer concierge follow-up', true],
  [2, 'New patient', 'lifecycle', '#1f8a70', 'Joined in the last 90 days', true],
  [3, 'Active subscriber', 'lifecycle', '#2e86de', 'On an active program subscription', true],
  [4, 'Lapsed', 'lifecycle', '#e67e22', 'Subscription paused or cancelled', true],
  [5, 'Referral', 'source', '#8e44ad', 'Came through a patient or affiliate referral', true],
  [6, 'Instagram', 'source', '#e1306c', 'Came from the Instagram campaign', true],
  [7, 'Weight loss', 'interest', '#27ae60', 'Interested in GLP-1 programs', true],
  [8, 'Hormone therapy', 'interest', '#c0392b', 'Interested in hormone programs', true],
  [9, 'Spring promo 2024', 'campaign', '#95a5a6', 'Retired campaign; kept on the contacts it reached', false],
];

/** Tagged contacts per clinic: Demo Clinic 34, Harbor Clinic 20 (of 40 each). */
const TAGGED = [34, 20];

/** The tags of seed patient i (1-based), by tag number. */
function tagsOfPatient(i: number): number[] {
  const numbers = [2 + (i % 3), 7 + (i % 2)]; // one lifecycle tag, one interest
  if (i % 4 === 0) numbers.push(5);
  if (i % 5 === 0) numbers.push(6);
  if (i % 7 === 0) numbers.push(1);
  if (i % 9 === 0) numbers.push(9);
  return numbers;
}

/** Opted-out contacts: [clinic index, patient i, email, sms, days ago]. */
const OPT_OUTS: [number, number, boolean, boolean, number][] = [
  [0, 6, true, false, 12],
  [0, 13, false, true, 30],
  [0, 27, true, true, 4],
  [1, 8, true, false, 20],
  [1, 19, true, true, 9],
];

/** The newest seed patients get their welcome email (patient i was created 120 - i days ago). */
const WELCOMED = [36, 37, 38, 39, 40];

export async function seedContacts(db: Database, now: Date): Promise<void> {
  const at = (daysAgo: number) => new Date(now.getTime() - daysAgo * DAY);
  const seedIds = LIVE_DEMO_CLINICS.flatMap((_, c) => TAGS.map(([n]) => seedTagId(c, n)));

  // A name a developer has since given to a tag of their own stays theirs: that demo tag is skipped.
  const taken = await db
    .select({ clinicId: tags.clinicId, name: sql<string>`lower(${tags.name})` })
    .from(tags)
    .where(and(inArray(tags.clinicId, [...LIVE_DEMO_CLINICS]), notInArray(tags.id, seedIds)));
  const isTaken = (clinicId: string, name: string) => taken.some((t) => t.clinicId === clinicId && t.name === name.toLowerCase());

  const tagRows: (typeof tags.$inferInsert)[] = [];
  const assignmentRows: (typeof patientTags.$inferInsert)[] = [];
  for (const [c, clinicId] of LIVE_DEMO_CLINICS.entries()) {
    const present = new Set<number>();
    for (const [n, name, category, color, description, isActive] of TAGS) {
      if (isTaken(clinicId, name)) continue;
      present.add(n);
      tagRows.push({
        id: seedTagId(c, n),
        clinicId,
        name,
        category,
        color,
        description,
        isActive,
        createdAt: at(150 - n),
        updatedAt: at(150 - n),
      });
    }
    for (let i = 1; i <= TAGGED[c]!; i++) {
      for (const n of tagsOfPatient(i)) {
        if (!present.has(n)) continue;
        assignmentRows.push({ clinicId, tagId: seedTagId(c, n), patientId: seedPatientId(c, i), createdAt: at(100 - i) });
      }
    }
  }
  if (tagRows.length) {
    await db
      .insert(tags)
      .values(tagRows)
      .onConflictDoUpdate({
        target: tags.id,
        set: refresh(['name', 'category', 'color', 'description', 'isActive', 'createdAt', 'updatedAt']),
      });
  }
  if (assignmentRows.length) {
    await db
      .insert(patientTags)
      .values(assignmentRows)
      .onConflictDoNothing({ target: [patientTags.tagId, patientTags.patientId] });
  }

  for (const [c, i, email, sms, daysAgo] of OPT_OUTS) {
    await db
      .update(patients)
      .set({ emailOptedOut: email, smsOptedOut: sms, optOutDate: at(daysAgo) })
      .where(and(eq(patients.id, seedPatientId(c, i)), eq(patients.clinicId, LIVE_DEMO_CLINICS[c]!)));
  }

  // Welcome emails as POST /contacts records them (development sender: status sent).
  const welcomed = await db
    .select({
      id: patients.id,
      clinicId: patients.clinicId,
      firstName: patients.firstName,
      email: patients.email,
      createdAt: patients.createdAt,
      clinicName: clinics.name,
    })
    .from(patients)
    .innerJoin(clinics, eq(clinics.id, patients.clinicId))
    .where(
      inArray(
        patients.id,
        LIVE_DEMO_CLINICS.flatMap((_, c) => WELCOMED.map((i) => seedPatientId(c, i))),
      ),
    );
  const messageRows: (typeof messages.$inferInsert)[] = welcomed.map((p) => {
    const c = LIVE_DEMO_CLINICS.indexOf(p.clinicId as (typeof LIVE_DEMO_CLINICS)[number]);
    const n = WELCOMED.findIndex((i) => seedPatientId(c, i) === p.id) + 1;
    const { subject, body } = welcomeEmail(p.clinicName, p.firstName);
    return {
      id: seedWelcomeMessageId(c, n),
      clinicId: p.clinicId,
      channel: 'email' as const,
      kind: 'welcome',
      toAddress: p.email,
      subject,
      body,
      patientId: p.id,
      status: 'sent' as const,
      provider: 'development',
      providerMessageId: `dev_seed_${c}_${n}`,
      sentAt: p.createdAt,
      createdAt: p.createdAt,
    };
  });
  if (messageRows.length) {
    await db
      .insert(messages)
      .values(messageRows)
      .onConflictDoUpdate({
        target: messages.id,
        set: refresh(['toAddress', 'subject', 'body', 'patientId', 'status', 'provider', 'providerMessageId', 'sentAt', 'createdAt']),
      });
  }
}
