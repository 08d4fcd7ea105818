import { and, desc, eq, type SQL, sql } from 'drizzle-orm';
import { clinics, patients } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import { isUniqueViolation } from '../../../platform/db/errors';
import { forClinic } from '../../../platform/db/scoped';
import { isoTimestamp, patientMatches } from '../../../platform/db/sql';
import { recordOutboxEvent } from '../../../platform/events/outbox';
import { pageOffset, paginate, totalCount } from '../../../platform/http/pagination';
import type { RecordedMessage } from '../../../platform/providers/messaging';
import { conflict, notFound } from '../../../platform/values/errors';
import { isUuid } from '../../../platform/values/ids';
import type { Tag } from '../tags/schemas';
import { type Contact, type CreateContactBody, type ListContactsQuery, normalizePhone, type UpdateContactBody } from './schemas';

const RESOURCE = 'Contact';
export const UNIQUE_EMAIL_INDEX = 'patients_clinic_id_email_key';

const emailTaken = () => conflict('CONFLICT', 'A contact with this email already exists in the clinic (emails are compared ignoring case)');
export const isDuplicateEmail = (error: unknown) => isUniqueViolation(error, UNIQUE_EMAIL_INDEX);

/*
 * The subqueries are written with qualified names by hand: Drizzle leaves columns unqualified in a
 * select list, where "id" would be ambiguous. Both use an index starting with clinic_id:
 * patient_tags (clinic_id, patient_id) and messages (clinic_id, patient_id). Timestamps are formatted
 * in SQL (isoTimestamp), so the tags arrive as the API's Tag and need no mapping.
 */
const contactTags = sql<Tag[] | string>`(
  select coalesce(json_agg(json_build_object(
    'id', t."id", 'name', t."name", 'description', t."description", 'category', t."category", 'color', t."color",
    'clinicId', t."clinic_id", 'isActive', t."is_active",
    'createdAt', ${isoTimestamp(sql`t."created_at"`)}, 'updatedAt', ${isoTimestamp(sql`t."updated_at"`)}
  ) order by lower(t."name"), t."id"), '[]'::json)
  from "patient_tags" pt join "tags" t on t."id" = pt."tag_id" and t."clinic_id" = pt."clinic_id"
  where pt."clinic_id" = "patients"."clinic_id" and pt."patient_id" = "patients"."id")`;

/** The newest message recorded for the contact (any channel and status). */
const lastContactDate = sql<string | null>`(
  select ${isoTimestamp(sql`max(m."created_at")`)} from "messages" m
  where m."clinic_id" = "patients"."clinic_id" and m."patient_id" = "patients"."id")`;

/** What a message to a contact needs: names, addresses and opt-outs (also read by the sequence runner). */
export const contactReachColumns = {
  firstName: patients.firstName,
  lastName: patients.lastName,
  email: patients.email,
  phoneNumber: patients.phoneNumber,
  emailOptedOut: patients.emailOptedOut,
  smsOptedOut: patients.smsOptedOut,
};

const contactColumns = {
  id: patients.id,
  ...contactReachColumns,
  optOutDate: patients.optOutDate,
  createdAt: patients.createdAt,
  lastLoginAt: patients.lastLoginAt,
  lastContactDate,
  tags: contactTags,
};

type ContactRow = {
  id: string;
  firstName: string;
  lastName: string;
  email: string;
  phoneNumber: string | null;
  emailOptedOut: boolean;
  smsOptedOut: boolean;
  optOutDate: Date | null;
  createdAt: Date;
  lastLoginAt: Date | null;
  lastContactDate: string | null;
  tags: Tag[] | string;
};

/** The API's contact, field by field. */
function toContact(row: ContactRow): Contact {
  return {
    id: row.id,
    firstName: row.firstName,
    lastName: row.lastName,
    email: row.email,
    phoneNumber: row.phoneNumber,
    emailOptedOut: row.emailOptedOut,
    smsOptedOut: row.smsOptedOut,
    optOutDate: row.optOutDate?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    lastLoginAt: row.lastLoginAt?.toISOString() ?? null,
    lastContactDate: row.lastContactDate,
    tags: typeof row.tags === 'string' ? (JSON.parse(row.tags) as Tag[]) : row.tags,
  };
}

/** Contacts (the clinic's patients), newest first, with their tags and last contact: one query. */
export async function listContacts({ db, clinicId }: HandlerContext, query: ListContactsQuery) {
  const scope = forClinic(db, clinicId);
  const filters: SQL[] = [];
  if (query.tag) {
    // The tag's own clinic is checked too: another clinic's tag id matches nothing.
    filters.push(sql`exists (select 1 from "patient_tags" f where f."tag_id" = ${query.tag} and f."clinic_id" = ${clinicId}
      and f."patient_id" = "patients"."id")`);
  }
  if (query.q) filters.push(patientMatches(sql`"patients"`, query.q));
  const rows = await db
    .select({ ...contactColumns, total: totalCount() })
    .from(patients)
    .where(and(scope.where(patients), ...filters))
    .orderBy(desc(patients.createdAt), desc(patients.id))
    .limit(query.limit)
    .offset(pageOffset(query));
  const page = await paginate(query, rows, () => scope.count(patients, ...filters));
  return { data: page.rows.map(toContact), pagination: page.pagination };
}

/** The welcome email of a new contact, in the clinic's name. */
export function welcomeEmail(clinicName: string, firstName: string) {
  return {
    subject: `Welcome to ${clinicName}`,
    body: [
      `Hi ${firstName},`,
      '',
      `Welcome to ${clinicName}! You are now registered with us, and we will keep you informed about your care by email.`,
      '',
      `If you did not expect this message, or no longer want emails from us, contact ${clinicName} and we will stop sending them.`,
      '',
      `The ${clinicName} team`,
    ].join('\n'),
  };
}

/**
 * Provisions a patient of the clinic and sends the welcome email through the clinic's sender, in one
 * transaction: a duplicate email (the unique (clinic_id, email) index, so concurrent creates are
 * safe) rolls everything back and answers 409, and no email is recorded for a contact that was not
 * created. Returns the queued/sent message too, so the caller can deliver it after the commit.
 */
export async function createContact(ctx: HandlerContext, body: CreateContactBody): Promise<{ contact: Contact; message: RecordedMessage }> {
  const { db, clinicId, messaging } = ctx;
  const now = ctx.now();
  try {
    return await db.transaction(async (tx) => {
      const [clinic] = await tx.select({ name: clinics.name }).from(clinics).where(eq(clinics.id, clinicId));
      const [created] = await tx
        .insert(patients)
        .values({
          clinicId,
          firstName: body.firstName,
          lastName: body.lastName,
          email: body.email,
          phoneNumber: body.phoneNumber ? normalizePhone(body.phoneNumber) : null,
          createdAt: now,
          updatedAt: now,
        })
        .returning(contactColumns);
      const welcome = welcomeEmail(clinic?.name ?? 'our clinic', body.firstName);
      const message = await messaging.send(
        tx,
        {
          clinicId,
          channel: 'email',
          kind: 'welcome',
          to: body.email,
          subject: welcome.subject,
          body: welcome.body,
          patientId: created!.id,
        },
        now,
      );
      // A new contact has no tags yet, and its last contact is the welcome email just recorded (at now).
      return { contact: { ...toContact(created!), lastContactDate: now.toISOString() }, message };
    });
  } catch (error) {
    if (isDuplicateEmail(error)) throw emailTaken();
    throw error;
  }
}

export type OptOutChannel = 'email' | 'sms';

/**
 * A partial update. Opting out of a channel (emailOptedOut or smsOptedOut going from false to true)
 * sets optOutDate to now and records contact.unsubscribed { contactId, channels } in the same
 * transaction (channels: the newly opted-out ones, comma-separated: email, sms or email,sms). Sending
 * true again for a channel already opted out changes nothing and emits nothing. Opting back in
 * emits nothing; optOutDate stays while the other channel is still opted out and becomes null once
 * neither is. The row is locked while it is merged.
 */
export async function updateContact(ctx: HandlerContext, id: string, body: UpdateContactBody): Promise<Contact> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  if (!isUuid(id)) throw notFound(RESOURCE);
  try {
    return await db.transaction(async (tx) => {
      const [current] = await tx
        .select({ emailOptedOut: patients.emailOptedOut, smsOptedOut: patients.smsOptedOut })
        .from(patients)
        .where(forClinic(tx, clinicId).where(patients, eq(patients.id, id)))
        .for('update');
      if (!current) throw notFound(RESOURCE);
      const changes: Partial<typeof patients.$inferInsert> = { updatedAt: now };
      if (body.firstName !== undefined) changes.firstName = body.firstName;
      if (body.lastName !== undefined) changes.lastName = body.lastName;
      if (body.email !== undefined) changes.email = body.email;
      if (body.phoneNumber !== undefined) changes.phoneNumber = body.phoneNumber === null ? null : normalizePhone(body.phoneNumber);
      if (body.emailOptedOut !== undefined) changes.emailOptedOut = body.emailOptedOut;
      if (body.smsOptedOut !== undefined) changes.smsOptedOut = body.smsOptedOut;

      const newlyOptedOut: OptOutChannel[] = [];
      if (body.emailOptedOut === true && !current.emailOptedOut) newlyOptedOut.push('email');
      if (body.smsOptedOut === true && !current.smsOptedOut) newlyOptedOut.push('sms');
      const emailOut = body.emailOptedOut ?? current.emailOptedOut;
      const smsOut = body.smsOptedOut ?? current.smsOptedOut;
      if (newlyOptedOut.length > 0) changes.optOutDate = now;
      else if (!emailOut && !smsOut) changes.optOutDate = null;

      const [updated] = await tx
        .update(patients)
        .set(changes)
        .where(and(eq(patients.clinicId, clinicId), eq(patients.id, id)))
        .returning(contactColumns);
      if (newlyOptedOut.length > 0) {
        await recordOutboxEvent(tx, clinicId, 'contact.unsubscribed', { contactId: id, channels: newlyOptedOut.join(',') }, now);
      }
      return toContact(updated!);
    });
  } catch (error) {
    if (isDuplicateEmail(error)) throw emailTaken();
    throw error;
  }
}
