// The clinic as a business: its organization profile, fee configuration, platform subscription and
// payout account, SMS provider, custom and email domains, onboarding and go-live, team invitations,
// and support (conversations, tickets). Each external system keeps its development state here.
import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { clinics, plans } from './clinics';
import { createdAt, id, timestamptz, updatedAt } from './columns';
import { patients } from './patients';
import { users } from './users';

const clinicId = () =>
  uuid('clinic_id')
    .notNull()
    .references(() => clinics.id, { onDelete: 'cascade' });

/** The legal forms onboarding accepts (save-business-details). */
export const BUSINESS_TYPES = [
  'sole_proprietorship',
  'partnership',
  'llc',
  'c_corporation',
  's_corporation',
  'professional_corporation',
  'nonprofit',
] as const;
export type BusinessType = (typeof BUSINESS_TYPES)[number];

/** The legal entity behind a clinic, one row per clinic. */
export const organizations = pgTable('organizations', {
  clinicId: uuid('clinic_id')
    .primaryKey()
    .references(() => clinics.id, { onDelete: 'cascade' }),
  legalName: text('legal_name'),
  doingBusinessAs: text('doing_business_as'),
  /** NN-NNNNNNN */
  ein: text('ein'),
  businessType: text('business_type').$type<BusinessType>(),
  /** Two-letter US state code where the business is registered. */
  stateOfRegistration: text('state_of_registration'),
  phoneNumber: text('phone_number'),
  websiteUrl: text('website_url'),
  supportEmail: text('support_email'),
  supportPhone: text('support_phone'),
  addressLine1: text('address_line1'),
  addressLine2: text('address_line2'),
  city: text('city'),
  /** Two-letter US state code. */
  state: text('state'),
  zipCode: text('zip_code'),
  timezone: text('timezone').notNull().default('America/New_York'),
  /** Sender shown on the clinic's emails: "<name> <localPart@verified domain>". */
  emailSenderName: text('email_sender_name'),
  emailSenderLocalPart: text('email_sender_local_part'),
  emailReplyTo: text('email_reply_to'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/** Fees the platform charges this clinic (GET /organization/config/fees); defaults when absent. */
export const clinicFeeConfigs = pgTable(
  'clinic_fee_configs',
  {
    clinicId: uuid('clinic_id')
      .primaryKey()
      .references(() => clinics.id, { onDelete: 'cascade' }),
    /** Platform fee on each charge, per mille (2.5% = 25). */
    platformFeePerMille: integer('platform_fee_per_mille').notNull(),
    doctorFeeCents: integer('doctor_fee_cents').notNull(),
    processorFeePerMille: integer('processor_fee_per_mille').notNull(),
    processorFeeFixedCents: integer('processor_fee_fixed_cents').notNull(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check(
      'clinic_fee_configs_values_check',
      sql`${t.platformFeePerMille} >= 0 and ${t.doctorFeeCents} >= 0 and ${t.processorFeePerMille} >= 0 and ${t.processorFeeFixedCents} >= 0`,
    ),
  ],
);

export const PLATFORM_SUBSCRIPTION_STATUSES = ['active', 'past_due', 'cancelled', 'expired'] as const;
export type PlatformSubscriptionStatus = (typeof PLATFORM_SUBSCRIPTION_STATUSES)[number];

/** The clinic's subscription to one of the platform's plans (its processor subscription mirrored). */
export const platformSubscriptions = pgTable(
  'platform_subscriptions',
  {
    id: id(),
    clinicId: clinicId(),
    planId: uuid('plan_id')
      .notNull()
      .references(() => plans.id, { onDelete: 'restrict' }),
    status: text('status').$type<PlatformSubscriptionStatus>().notNull().default('active'),
    currentPeriodStart: timestamptz('current_period_start').notNull(),
    currentPeriodEnd: timestamptz('current_period_end').notNull(),
    /** The processor's copy differs from ours and must be re-read before a change (preview: 409). */
    needsSync: boolean('needs_sync').notNull().default(false),
    processorSubscriptionId: text('processor_subscription_id'),
    cancelledAt: timestamptz('cancelled_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // One current (not cancelled) subscription per clinic.
    uniqueIndex('platform_subscriptions_clinic_id_current_key').on(t.clinicId).where(sql`${t.status} <> 'cancelled'`),
    index('platform_subscriptions_clinic_id_created_at_idx').on(t.clinicId, t.createdAt),
    check('platform_subscriptions_status_check', sql`${t.status} in ('active', 'past_due', 'cancelled', 'expired')`),
  ],
);

export const PAYOUT_ACCOUNT_STATUSES = ['not_connected', 'pending', 'restricted', 'active'] as const;
export type PayoutAccountStatus = (typeof PAYOUT_ACCOUNT_STATUSES)[number];

/** The clinic's connected account at the payment processor; status cached for 5 minutes. */
export const payoutAccounts = pgTable(
  'payout_accounts',
  {
    clinicId: uuid('clinic_id')
      .primaryKey()
      .references(() => clinics.id, { onDelete: 'cascade' }),
    processorAccountId: text('processor_account_id').notNull(),
    status: text('status').$type<PayoutAccountStatus>().notNull().default('pending'),
    chargesEnabled: boolean('charges_enabled').notNull().default(false),
    payoutsEnabled: boolean('payouts_enabled').notNull().default(false),
    detailsSubmitted: boolean('details_submitted').notNull().default(false),
    requirementsDue: text('requirements_due').array().notNull().default(sql`'{}'::text[]`),
    statusCheckedAt: timestamptz('status_checked_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('payout_accounts_processor_account_id_key').on(t.processorAccountId),
    check('payout_accounts_status_check', sql`${t.status} in ('not_connected', 'pending', 'restricted', 'active')`),
  ],
);

export const SMS_CONFIG_STATUSES = ['configured', 'active', 'released'] as const;
export type SmsConfigStatus = (typeof SMS_CONFIG_STATUSES)[number];

/** The clinic's SMS provider account and number; the auth token encrypted (AES-GCM), never returned. */
export const smsConfigs = pgTable(
  'sms_configs',
  {
    clinicId: uuid('clinic_id')
      .primaryKey()
      .references(() => clinics.id, { onDelete: 'cascade' }),
    provider: text('provider').notNull(),
    accountSid: text('account_sid').notNull(),
    encryptedAuthToken: text('encrypted_auth_token').notNull(),
    /** E.164; set once a number is provisioned (activate), cleared on release. */
    phoneNumber: text('phone_number'),
    providerNumberId: text('provider_number_id'),
    status: text('status').$type<SmsConfigStatus>().notNull().default('configured'),
    activatedAt: timestamptz('activated_at'),
    releasedAt: timestamptz('released_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [check('sms_configs_status_check', sql`${t.status} in ('configured', 'active', 'released')`)],
);

export const CUSTOM_DOMAIN_STATUSES = ['pending_verification', 'verified', 'active', 'removed'] as const;
export type CustomDomainStatus = (typeof CUSTOM_DOMAIN_STATUSES)[number];

/** A hostname serving the clinic's storefront (Cloudflare for SaaS custom hostname in production). */
export const customDomains = pgTable(
  'custom_domains',
  {
    id: id(),
    clinicId: clinicId(),
    hostname: text('hostname').notNull(),
    status: text('status').$type<CustomDomainStatus>().notNull().default('pending_verification'),
    /** The TXT record value the brand must publish, and the CNAME target. */
    verificationToken: text('verification_token').notNull(),
    cnameTarget: text('cname_target').notNull(),
    providerHostnameId: text('provider_hostname_id'),
    verifiedAt: timestamptz('verified_at'),
    activatedAt: timestamptz('activated_at'),
    removedAt: timestamptz('removed_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('custom_domains_hostname_key').on(t.hostname).where(sql`${t.status} <> 'removed'`),
    uniqueIndex('custom_domains_clinic_id_current_key').on(t.clinicId).where(sql`${t.status} <> 'removed'`),
    check('custom_domains_status_check', sql`${t.status} in ('pending_verification', 'verified', 'active', 'removed')`),
  ],
);

export const EMAIL_DOMAIN_STATUSES = ['pending', 'verified', 'removed'] as const;
export type EmailDomainStatus = (typeof EMAIL_DOMAIN_STATUSES)[number];

/** A domain the clinic sends email from, authenticated with the DNS records returned at start. */
export const emailDomains = pgTable(
  'email_domains',
  {
    id: id(),
    clinicId: clinicId(),
    domain: text('domain').notNull(),
    status: text('status').$type<EmailDomainStatus>().notNull().default('pending'),
    /** [{ type, name, value, purpose }] the brand must publish (SPF, DKIM, return path). */
    dnsRecords: jsonb('dns_records').$type<Record<string, unknown>[]>().notNull(),
    providerDomainId: text('provider_domain_id'),
    verifiedAt: timestamptz('verified_at'),
    removedAt: timestamptz('removed_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('email_domains_clinic_id_current_key').on(t.clinicId).where(sql`${t.status} <> 'removed'`),
    // One brand at a time may authenticate a domain (a race of two starts ends in one 409).
    uniqueIndex('email_domains_domain_current_key').on(t.domain).where(sql`${t.status} <> 'removed'`),
    check('email_domains_status_check', sql`${t.status} in ('pending', 'verified', 'removed')`),
  ],
);

export const ONBOARDING_STEPS = ['business_details', 'identity_verification', 'agreement', 'plan_payment', 'completed'] as const;
export type OnboardingStep = (typeof ONBOARDING_STEPS)[number];

/** Where the clinic is in onboarding (one row per clinic). */
export const onboarding = pgTable(
  'onboarding',
  {
    clinicId: uuid('clinic_id')
      .primaryKey()
      .references(() => clinics.id, { onDelete: 'cascade' }),
    currentStep: text('current_step').$type<OnboardingStep>().notNull().default('business_details'),
    businessDetailsSubmittedAt: timestamptz('business_details_submitted_at'),
    signerFirstName: text('signer_first_name'),
    signerLastName: text('signer_last_name'),
    signerEmail: text('signer_email'),
    /** The signer's name may be changed once, before identity verification. */
    nameChangeRequestedAt: timestamptz('name_change_requested_at'),
    identityVerifiedAt: timestamptz('identity_verified_at'),
    signatureTypedName: text('signature_typed_name'),
    signatureDeclaredAt: timestamptz('signature_declared_at'),
    planPaidAt: timestamptz('plan_paid_at'),
    completedAt: timestamptz('completed_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check(
      'onboarding_step_check',
      sql`${t.currentStep} in ('business_details', 'identity_verification', 'agreement', 'plan_payment', 'completed')`,
    ),
  ],
);

export const INVITATION_STATUSES = ['pending', 'accepted', 'cancelled', 'expired'] as const;
export type InvitationStatus = (typeof INVITATION_STATUSES)[number];

export const invitations = pgTable(
  'invitations',
  {
    id: id(),
    clinicId: clinicId(),
    /** Lower-cased. */
    email: text('email').notNull(),
    role: text('role').notNull(),
    status: text('status').$type<InvitationStatus>().notNull().default('pending'),
    /** SHA-256 (hex) of the token in the invitation link. */
    tokenHash: text('token_hash').notNull(),
    invitedByUserId: uuid('invited_by_user_id').references(() => users.id, { onDelete: 'set null' }),
    /** go_live when sent by POST /sandbox/go-live. */
    source: text('source').notNull().default('team'),
    expiresAt: timestamptz('expires_at').notNull(),
    acceptedAt: timestamptz('accepted_at'),
    cancelledAt: timestamptz('cancelled_at'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('invitations_clinic_id_email_pending_key').on(t.clinicId, t.email).where(sql`${t.status} = 'pending'`),
    uniqueIndex('invitations_token_hash_key').on(t.tokenHash),
    index('invitations_clinic_id_created_at_idx').on(t.clinicId, t.createdAt),
    check('invitations_status_check', sql`${t.status} in ('pending', 'accepted', 'cancelled', 'expired')`),
    check('invitations_role_check', sql`${t.role} in ('admin', 'member')`),
  ],
);

export const GO_LIVE_STATUSES = ['requested', 'completed'] as const;
export type GoLiveStatus = (typeof GO_LIVE_STATUSES)[number];

export const goLiveRequests = pgTable(
  'go_live_requests',
  {
    id: id(),
    clinicId: clinicId(),
    signerFirstName: text('signer_first_name').notNull(),
    signerLastName: text('signer_last_name').notNull(),
    signerEmail: text('signer_email').notNull(),
    status: text('status').$type<GoLiveStatus>().notNull().default('requested'),
    invitationId: uuid('invitation_id').references(() => invitations.id, { onDelete: 'set null' }),
    completedAt: timestamptz('completed_at'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('go_live_requests_clinic_id_requested_key').on(t.clinicId).where(sql`${t.status} = 'requested'`),
    check('go_live_requests_status_check', sql`${t.status} in ('requested', 'completed')`),
  ],
);

export const CONVERSATION_STATUSES = ['open', 'resolved'] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];

/** A conversation with one of the clinic's patients. */
export const conversations = pgTable(
  'conversations',
  {
    id: id(),
    clinicId: clinicId(),
    patientId: uuid('patient_id').references(() => patients.id, { onDelete: 'set null' }),
    subject: text('subject'),
    status: text('status').$type<ConversationStatus>().notNull().default('open'),
    lastMessageAt: timestamptz('last_message_at'),
    resolvedAt: timestamptz('resolved_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('conversations_clinic_id_last_message_at_idx').on(t.clinicId, t.lastMessageAt),
    check('conversations_status_check', sql`${t.status} in ('open', 'resolved')`),
  ],
);

export const MESSAGE_AUTHOR_TYPES = ['patient', 'staff', 'api_key', 'platform'] as const;
export type MessageAuthorType = (typeof MESSAGE_AUTHOR_TYPES)[number];

export const conversationMessages = pgTable(
  'conversation_messages',
  {
    id: id(),
    clinicId: clinicId(),
    conversationId: uuid('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    authorType: text('author_type').$type<MessageAuthorType>().notNull(),
    authorUserId: uuid('author_user_id').references(() => users.id, { onDelete: 'set null' }),
    body: text('body').notNull(),
    isInternalNote: boolean('is_internal_note').notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [index('conversation_messages_conversation_id_created_at_idx').on(t.conversationId, t.createdAt)],
);

export const SUPPORT_TICKET_STATUSES = ['open', 'in_progress', 'waiting_on_customer', 'resolved', 'closed'] as const;
export type SupportTicketStatus = (typeof SUPPORT_TICKET_STATUSES)[number];
export const SUPPORT_TEAMS = ['support', 'billing', 'technical', 'clinical'] as const;
export type SupportTeam = (typeof SUPPORT_TEAMS)[number];

/** A ticket the clinic raised with the platform's support. */
export const supportTickets = pgTable(
  'support_tickets',
  {
    id: id(),
    clinicId: clinicId(),
    title: text('title').notNull(),
    description: text('description').notNull(),
    status: text('status').$type<SupportTicketStatus>().notNull().default('open'),
    assignedTeam: text('assigned_team').$type<SupportTeam>().notNull().default('support'),
    assignedUserId: uuid('assigned_user_id').references(() => users.id, { onDelete: 'set null' }),
    resolvedAt: timestamptz('resolved_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('support_tickets_clinic_id_created_at_idx').on(t.clinicId, t.createdAt, t.id),
    check('support_tickets_status_check', sql`${t.status} in ('open', 'in_progress', 'waiting_on_customer', 'resolved', 'closed')`),
    check('support_tickets_team_check', sql`${t.assignedTeam} in ('support', 'billing', 'technical', 'clinical')`),
  ],
);

export const supportTicketMessages = pgTable(
  'support_ticket_messages',
  {
    id: id(),
    clinicId: clinicId(),
    ticketId: uuid('ticket_id')
      .notNull()
      .references(() => supportTickets.id, { onDelete: 'cascade' }),
    authorType: text('author_type').$type<MessageAuthorType>().notNull(),
    authorUserId: uuid('author_user_id').references(() => users.id, { onDelete: 'set null' }),
    body: text('body').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('support_ticket_messages_ticket_id_created_at_idx').on(t.ticketId, t.createdAt)],
);
