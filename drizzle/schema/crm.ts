// CRM: tags on the clinic's patients (its contacts), message templates, sequences that send them on
// a schedule (steps, enrollments, step runs), and the connection to an external CRM.
import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { clinics } from './clinics';
import { createdAt, id, timestamptz, updatedAt } from './columns';
import { messages } from './messaging';
import { patients } from './patients';
import { users } from './users';

const clinicId = () =>
  uuid('clinic_id')
    .notNull()
    .references(() => clinics.id, { onDelete: 'cascade' });

export const tags = pgTable(
  'tags',
  {
    id: id(),
    clinicId: clinicId(),
    name: text('name').notNull(),
    description: text('description'),
    category: text('category'),
    /** #rgb or #rrggbb. */
    color: text('color').notNull(),
    isActive: boolean('is_active').notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // Names are unique per clinic regardless of case.
    uniqueIndex('tags_clinic_id_name_key').on(t.clinicId, sql`lower(${t.name})`),
    index('tags_clinic_id_created_at_idx').on(t.clinicId, t.createdAt, t.id),
    index('tags_clinic_id_category_idx').on(t.clinicId, t.category),
  ],
);

/** A tag on a patient; deleting either removes the assignment. */
export const patientTags = pgTable(
  'patient_tags',
  {
    clinicId: clinicId(),
    tagId: uuid('tag_id')
      .notNull()
      .references(() => tags.id, { onDelete: 'cascade' }),
    patientId: uuid('patient_id')
      .notNull()
      .references(() => patients.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.tagId, t.patientId] }), index('patient_tags_clinic_id_patient_id_idx').on(t.clinicId, t.patientId)],
);

export const MESSAGE_TEMPLATE_TYPES = ['email', 'sms'] as const;
export type MessageTemplateType = (typeof MESSAGE_TEMPLATE_TYPES)[number];

export const messageTemplates = pgTable(
  'message_templates',
  {
    id: id(),
    clinicId: clinicId(),
    name: text('name').notNull(),
    description: text('description'),
    type: text('type').$type<MessageTemplateType>().notNull(),
    subject: text('subject'),
    body: text('body').notNull(),
    category: text('category'),
    /** Derived from the body ({{firstName}} -> firstName) on every write. */
    mergeFields: text('merge_fields').array().notNull().default(sql`'{}'::text[]`),
    isActive: boolean('is_active').notNull().default(true),
    /** 1 on create, +1 on every update. */
    version: integer('version').notNull().default(1),
    /** The staff user who made it; null when made with an API key. */
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    deletedAt: timestamptz('deleted_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('message_templates_clinic_id_created_at_idx').on(t.clinicId, t.createdAt, t.id).where(sql`${t.deletedAt} is null`),
    check('message_templates_type_check', sql`${t.type} in ('email', 'sms')`),
  ],
);

export const SEQUENCE_STATUSES = ['draft', 'active', 'paused', 'archived'] as const;
export type SequenceStatus = (typeof SEQUENCE_STATUSES)[number];

export const sequences = pgTable(
  'sequences',
  {
    id: id(),
    clinicId: clinicId(),
    name: text('name').notNull(),
    description: text('description'),
    status: text('status').$type<SequenceStatus>().notNull().default('draft'),
    /** manual, contact_created, tag_added, ... (docs/crm.md). */
    triggerEvent: text('trigger_event').notNull(),
    /** Trigger settings, e.g. { tagId } for tag_added. */
    triggerConfig: jsonb('trigger_config').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('sequences_clinic_id_created_at_idx').on(t.clinicId, t.createdAt, t.id),
    check('sequences_status_check', sql`${t.status} in ('draft', 'active', 'paused', 'archived')`),
  ],
);

export const SEQUENCE_STEP_TYPES = ['delay', 'email', 'sms'] as const;
export type SequenceStepType = (typeof SEQUENCE_STEP_TYPES)[number];

/** The ordered steps of a sequence; PUT /sequences/{id}/steps replaces them all. */
export const sequenceSteps = pgTable(
  'sequence_steps',
  {
    id: id(),
    clinicId: clinicId(),
    sequenceId: uuid('sequence_id')
      .notNull()
      .references(() => sequences.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    type: text('type').$type<SequenceStepType>().notNull(),
    /** delay steps: how long to wait (> 0). */
    timeSeconds: integer('time_seconds'),
    useCustomText: boolean('use_custom_text').notNull().default(false),
    templateId: uuid('template_id').references(() => messageTemplates.id, { onDelete: 'restrict' }),
    customText: text('custom_text'),
    customSubject: text('custom_subject'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('sequence_steps_sequence_id_position_key').on(t.sequenceId, t.position),
    index('sequence_steps_template_id_idx').on(t.templateId),
    check('sequence_steps_type_check', sql`${t.type} in ('delay', 'email', 'sms')`),
  ],
);

export const SEQUENCE_ENROLLMENT_STATUSES = ['active', 'completed', 'cancelled'] as const;
export type SequenceEnrollmentStatus = (typeof SEQUENCE_ENROLLMENT_STATUSES)[number];

/** A contact going through a sequence; the cron sweep runs the step at nextStepPosition when due. */
export const sequenceEnrollments = pgTable(
  'sequence_enrollments',
  {
    id: id(),
    clinicId: clinicId(),
    sequenceId: uuid('sequence_id')
      .notNull()
      .references(() => sequences.id, { onDelete: 'cascade' }),
    patientId: uuid('patient_id')
      .notNull()
      .references(() => patients.id, { onDelete: 'cascade' }),
    status: text('status').$type<SequenceEnrollmentStatus>().notNull().default('active'),
    nextStepPosition: integer('next_step_position').notNull().default(0),
    nextRunAt: timestamptz('next_run_at'),
    enrolledAt: timestamptz('enrolled_at').notNull().defaultNow(),
    completedAt: timestamptz('completed_at'),
    updatedAt: updatedAt(),
  },
  (t) => [
    // A contact is enrolled in a sequence once.
    uniqueIndex('sequence_enrollments_sequence_id_patient_id_key').on(t.sequenceId, t.patientId),
    index('sequence_enrollments_due_idx').on(t.nextRunAt).where(sql`${t.status} = 'active'`),
    index('sequence_enrollments_clinic_id_sequence_id_status_idx').on(t.clinicId, t.sequenceId, t.status),
    check('sequence_enrollments_status_check', sql`${t.status} in ('active', 'completed', 'cancelled')`),
  ],
);

export const SEQUENCE_RUN_OUTCOMES = ['sent', 'skipped', 'failed'] as const;
export type SequenceRunOutcome = (typeof SEQUENCE_RUN_OUTCOMES)[number];

/** Each message step an enrollment went through: sent, or skipped (opted out, no address). */
export const sequenceStepRuns = pgTable(
  'sequence_step_runs',
  {
    id: id(),
    clinicId: clinicId(),
    sequenceId: uuid('sequence_id')
      .notNull()
      .references(() => sequences.id, { onDelete: 'cascade' }),
    enrollmentId: uuid('enrollment_id')
      .notNull()
      .references(() => sequenceEnrollments.id, { onDelete: 'cascade' }),
    /** The step as it was (steps are replaced wholesale, so no foreign key). */
    stepPosition: integer('step_position').notNull(),
    stepType: text('step_type').$type<SequenceStepType>().notNull(),
    outcome: text('outcome').$type<SequenceRunOutcome>().notNull(),
    reason: text('reason'),
    messageId: uuid('message_id').references(() => messages.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('sequence_step_runs_enrollment_id_step_position_key').on(t.enrollmentId, t.stepPosition),
    index('sequence_step_runs_clinic_id_sequence_id_outcome_idx').on(t.clinicId, t.sequenceId, t.outcome),
    check('sequence_step_runs_outcome_check', sql`${t.outcome} in ('sent', 'skipped', 'failed')`),
  ],
);

export const CRM_AUTH_TYPES = ['api_key', 'oauth'] as const;
export type CrmAuthType = (typeof CRM_AUTH_TYPES)[number];

/** One external CRM per clinic. Credentials (API key or OAuth tokens) are encrypted (AES-GCM). */
export const crmConnections = pgTable(
  'crm_connections',
  {
    id: id(),
    clinicId: clinicId(),
    provider: text('provider').notNull(),
    authType: text('auth_type').$type<CrmAuthType>().notNull(),
    /** base64(iv || ciphertext) of the JSON credentials; never returned. */
    encryptedCredentials: text('encrypted_credentials').notNull(),
    /** Safe to show: the last four characters of the key, the account's name at the provider. */
    credentialHint: text('credential_hint'),
    accountName: text('account_name'),
    phiSyncEnabled: boolean('phi_sync_enabled').notNull().default(false),
    baaAttestedAt: timestamptz('baa_attested_at'),
    connectedAt: timestamptz('connected_at').notNull().defaultNow(),
    lastSyncedAt: timestamptz('last_synced_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('crm_connections_clinic_id_key').on(t.clinicId),
    check('crm_connections_auth_type_check', sql`${t.authType} in ('api_key', 'oauth')`),
  ],
);
