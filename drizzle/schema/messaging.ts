// Outgoing email and SMS: every message the platform sends (welcome emails, sequence steps,
// invitations) is a row here. In development this table is the whole provider (inspect it); in
// production the provider adapter sends and records its message id (docs/messaging.md).
import { sql } from 'drizzle-orm';
import { check, index, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { clinics } from './clinics';
import { createdAt, id, timestamptz } from './columns';
import { patients } from './patients';

export const MESSAGE_CHANNELS = ['email', 'sms'] as const;
export type MessageChannel = (typeof MESSAGE_CHANNELS)[number];
export const MESSAGE_STATUSES = ['queued', 'sent', 'failed'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];
/** What an email body is: plain text, or HTML within the allow-list (docs/api-conventions.md, "Markup in stored fields"). SMS: text. */
export const MESSAGE_FORMATS = ['text', 'html'] as const;
export type MessageFormat = (typeof MESSAGE_FORMATS)[number];

export const messages = pgTable(
  'messages',
  {
    id: id(),
    clinicId: uuid('clinic_id')
      .notNull()
      .references(() => clinics.id, { onDelete: 'cascade' }),
    channel: text('channel').$type<MessageChannel>().notNull(),
    /** What caused it: welcome, sequence, invitation, go_live_invitation, ... */
    kind: text('kind').notNull(),
    /** Email address or E.164 phone number. */
    toAddress: text('to_address').notNull(),
    subject: text('subject'),
    body: text('body').notNull(),
    /** html: sent to the provider as the HTML part (with a plain-text part made from it); text: as text. */
    format: text('format').$type<MessageFormat>().notNull().default('text'),
    patientId: uuid('patient_id').references(() => patients.id, { onDelete: 'set null' }),
    status: text('status').$type<MessageStatus>().notNull().default('queued'),
    /** development, resend, twilio, ... */
    provider: text('provider').notNull(),
    providerMessageId: text('provider_message_id'),
    error: text('error'),
    sentAt: timestamptz('sent_at'),
    createdAt: createdAt(),
  },
  (t) => [
    index('messages_clinic_id_created_at_idx').on(t.clinicId, t.createdAt),
    index('messages_clinic_id_patient_id_idx').on(t.clinicId, t.patientId),
    // The delivery sweep's queue: queued rows, oldest first.
    index('messages_queued_idx').on(t.createdAt).where(sql`${t.status} = 'queued'`),
    check('messages_channel_check', sql`${t.channel} in ('email', 'sms')`),
    check('messages_status_check', sql`${t.status} in ('queued', 'sent', 'failed')`),
    check('messages_format_check', sql`${t.format} in ('text', 'html')`),
  ],
);
