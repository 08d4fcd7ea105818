CREATE TABLE "messages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"channel" text NOT NULL,
	"kind" text NOT NULL,
	"to_address" text NOT NULL,
	"subject" text,
	"body" text NOT NULL,
	"patient_id" uuid,
	"status" text DEFAULT 'queued' NOT NULL,
	"provider" text NOT NULL,
	"provider_message_id" text,
	"error" text,
	"sent_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "messages_channel_check" CHECK ("messages"."channel" in ('email', 'sms')),
	CONSTRAINT "messages_status_check" CHECK ("messages"."status" in ('queued', 'sent', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "crm_connections" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"provider" text NOT NULL,
	"auth_type" text NOT NULL,
	"encrypted_credentials" text NOT NULL,
	"credential_hint" text,
	"account_name" text,
	"phi_sync_enabled" boolean DEFAULT false NOT NULL,
	"baa_attested_at" timestamp with time zone,
	"connected_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_synced_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "crm_connections_auth_type_check" CHECK ("crm_connections"."auth_type" in ('api_key', 'oauth'))
);
--> statement-breakpoint
CREATE TABLE "message_templates" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"type" text NOT NULL,
	"subject" text,
	"body" text NOT NULL,
	"category" text,
	"merge_fields" text[] DEFAULT '{}'::text[] NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"created_by" uuid,
	"deleted_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "message_templates_type_check" CHECK ("message_templates"."type" in ('email', 'sms'))
);
--> statement-breakpoint
CREATE TABLE "patient_tags" (
	"clinic_id" uuid NOT NULL,
	"tag_id" uuid NOT NULL,
	"patient_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "patient_tags_tag_id_patient_id_pk" PRIMARY KEY("tag_id","patient_id")
);
--> statement-breakpoint
CREATE TABLE "sequence_enrollments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"sequence_id" uuid NOT NULL,
	"patient_id" uuid NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"next_step_position" integer DEFAULT 0 NOT NULL,
	"next_run_at" timestamp with time zone,
	"enrolled_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sequence_enrollments_status_check" CHECK ("sequence_enrollments"."status" in ('active', 'completed', 'cancelled'))
);
--> statement-breakpoint
CREATE TABLE "sequence_step_runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"sequence_id" uuid NOT NULL,
	"enrollment_id" uuid NOT NULL,
	"step_position" integer NOT NULL,
	"step_type" text NOT NULL,
	"outcome" text NOT NULL,
	"reason" text,
	"message_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sequence_step_runs_outcome_check" CHECK ("sequence_step_runs"."outcome" in ('sent', 'skipped', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "sequence_steps" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"sequence_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"type" text NOT NULL,
	"time_seconds" integer,
	"use_custom_text" boolean DEFAULT false NOT NULL,
	"template_id" uuid,
	"custom_text" text,
	"custom_subject" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sequence_steps_type_check" CHECK ("sequence_steps"."type" in ('delay', 'email', 'sms'))
);
--> statement-breakpoint
CREATE TABLE "sequences" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"status" text DEFAULT 'draft' NOT NULL,
	"trigger_event" text NOT NULL,
	"trigger_config" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sequences_status_check" CHECK ("sequences"."status" in ('draft', 'active', 'paused', 'archived'))
);
--> statement-breakpoint
CREATE TABLE "tags" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"category" text,
	"color" text NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "affiliate_commissions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"affiliate_id" uuid NOT NULL,
	"referral_id" uuid NOT NULL,
	"order_id" uuid NOT NULL,
	"is_first_order" boolean NOT NULL,
	"base_amount_cents" integer NOT NULL,
	"rate_hundredths" integer NOT NULL,
	"amount_cents" integer NOT NULL,
	"status" text DEFAULT 'earned' NOT NULL,
	"payout_id" uuid,
	"earned_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "affiliate_commissions_status_check" CHECK ("affiliate_commissions"."status" in ('earned', 'included', 'excluded', 'paid')),
	CONSTRAINT "affiliate_commissions_amount_check" CHECK ("affiliate_commissions"."amount_cents" >= 0 and "affiliate_commissions"."base_amount_cents" >= 0)
);
--> statement-breakpoint
CREATE TABLE "affiliate_payouts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"affiliate_id" uuid NOT NULL,
	"period_start" timestamp with time zone NOT NULL,
	"period_end" timestamp with time zone NOT NULL,
	"amount_cents" integer NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"approved_at" timestamp with time zone,
	"paid_at" timestamp with time zone,
	"notes" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "affiliate_payouts_status_check" CHECK ("affiliate_payouts"."status" in ('pending', 'approved', 'paid')),
	CONSTRAINT "affiliate_payouts_amount_check" CHECK ("affiliate_payouts"."amount_cents" >= 0)
);
--> statement-breakpoint
CREATE TABLE "affiliate_programs" (
	"clinic_id" uuid PRIMARY KEY NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"commission_mode" text DEFAULT 'percentage' NOT NULL,
	"first_order_rate_hundredths" integer DEFAULT 0 NOT NULL,
	"default_rate_hundredths" integer DEFAULT 0 NOT NULL,
	"commission_duration_months" integer,
	"cookie_window_days" integer DEFAULT 30 NOT NULL,
	"minimum_payout_threshold_cents" integer DEFAULT 0 NOT NULL,
	"payout_frequency" text DEFAULT 'monthly' NOT NULL,
	"max_affiliates" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "affiliate_programs_mode_check" CHECK ("affiliate_programs"."commission_mode" in ('percentage', 'flat')),
	CONSTRAINT "affiliate_programs_frequency_check" CHECK ("affiliate_programs"."payout_frequency" in ('weekly', 'biweekly', 'monthly')),
	CONSTRAINT "affiliate_programs_values_check" CHECK ("affiliate_programs"."first_order_rate_hundredths" >= 0 and "affiliate_programs"."default_rate_hundredths" >= 0 and "affiliate_programs"."minimum_payout_threshold_cents" >= 0)
);
--> statement-breakpoint
CREATE TABLE "affiliate_referrals" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"affiliate_id" uuid NOT NULL,
	"patient_id" uuid NOT NULL,
	"referred_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "affiliate_tax_documents" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"affiliate_id" uuid NOT NULL,
	"document_type" text NOT NULL,
	"tax_year" integer NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"tin_last_four" text,
	"submitted_at" timestamp with time zone DEFAULT now() NOT NULL,
	"reviewed_at" timestamp with time zone,
	"rejection_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "affiliate_tax_documents_status_check" CHECK ("affiliate_tax_documents"."status" in ('pending', 'verified', 'rejected'))
);
--> statement-breakpoint
CREATE TABLE "affiliate_tiers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"min_active_referrals" integer NOT NULL,
	"percentage_hundredths" integer NOT NULL,
	"label" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "affiliate_tiers_values_check" CHECK ("affiliate_tiers"."min_active_referrals" >= 0 and "affiliate_tiers"."percentage_hundredths" >= 0 and "affiliate_tiers"."percentage_hundredths" <= 10000)
);
--> statement-breakpoint
CREATE TABLE "affiliates" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"first_name" text NOT NULL,
	"last_name" text NOT NULL,
	"email" text NOT NULL,
	"referral_code" text NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"first_order_rate_hundredths" integer,
	"commission_rate_hundredths" integer,
	"payout_contact_method" text,
	"payout_notes" text,
	"joined_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "affiliates_status_check" CHECK ("affiliates"."status" in ('active', 'paused', 'removed'))
);
--> statement-breakpoint
CREATE TABLE "brand_treatments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"treatment_id" uuid NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "custom_websites" (
	"clinic_id" uuid PRIMARY KEY NOT NULL,
	"is_active" boolean DEFAULT false NOT NULL,
	"hero_title" text,
	"hero_subtitle" text,
	"hero_primary_button_text" text,
	"primary_color" text,
	"footer_color" text,
	"footer_text" text,
	"social_media_links" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"logo_upload_id" uuid,
	"hero_upload_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "form_global_products" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"questionnaire_id" uuid NOT NULL,
	"global_product_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "form_sessions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"questionnaire_id" uuid NOT NULL,
	"program_id" uuid,
	"patient_id" uuid,
	"status" text DEFAULT 'started' NOT NULL,
	"last_step_reached" integer DEFAULT 1 NOT NULL,
	"total_steps" integer NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"completed_at" timestamp with time zone,
	"abandoned_at" timestamp with time zone,
	CONSTRAINT "form_sessions_status_check" CHECK ("form_sessions"."status" in ('started', 'completed', 'abandoned')),
	CONSTRAINT "form_sessions_steps_check" CHECK ("form_sessions"."last_step_reached" >= 1 and "form_sessions"."last_step_reached" <= "form_sessions"."total_steps")
);
--> statement-breakpoint
CREATE TABLE "intake_requests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"treatment_name" text NOT NULL,
	"notes" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"requested_by_user_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "intake_requests_status_check" CHECK ("intake_requests"."status" in ('pending', 'in_review', 'completed', 'declined'))
);
--> statement-breakpoint
CREATE TABLE "navigation_menus" (
	"clinic_id" uuid PRIMARY KEY NOT NULL,
	"header_menu" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"footer_menu" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notifications" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"type" text NOT NULL,
	"title" text NOT NULL,
	"body" text NOT NULL,
	"data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"read_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "page_versions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"page_id" uuid NOT NULL,
	"version" integer NOT NULL,
	"content" jsonb NOT NULL,
	"seo" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"published_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "pages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"slug" text NOT NULL,
	"page_type" text DEFAULT 'custom' NOT NULL,
	"is_homepage" boolean DEFAULT false NOT NULL,
	"status" text DEFAULT 'draft' NOT NULL,
	"draft_content" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"published_content" jsonb,
	"seo_title" text,
	"seo_description" text,
	"seo_og_image" text,
	"seo_canonical" text,
	"published_version" integer DEFAULT 0 NOT NULL,
	"published_at" timestamp with time zone,
	"deleted_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "pages_status_check" CHECK ("pages"."status" in ('draft', 'published'))
);
--> statement-breakpoint
CREATE TABLE "product_likes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"tenant_product_id" uuid NOT NULL,
	"patient_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "teleform_removals" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"questionnaire_id" uuid NOT NULL,
	"reason" text,
	"status" text DEFAULT 'scheduled' NOT NULL,
	"scheduled_for" timestamp with time zone NOT NULL,
	"cancel_reason" text,
	"cancelled_at" timestamp with time zone,
	"completed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "teleform_removals_status_check" CHECK ("teleform_removals"."status" in ('scheduled', 'completed', 'cancelled'))
);
--> statement-breakpoint
CREATE TABLE "treatments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"description" text,
	"brand_color" text,
	"logo_url" text,
	"products_price_cents" integer,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "clinic_fee_configs" (
	"clinic_id" uuid PRIMARY KEY NOT NULL,
	"platform_fee_per_mille" integer NOT NULL,
	"doctor_fee_cents" integer NOT NULL,
	"processor_fee_per_mille" integer NOT NULL,
	"processor_fee_fixed_cents" integer NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "clinic_fee_configs_values_check" CHECK ("clinic_fee_configs"."platform_fee_per_mille" >= 0 and "clinic_fee_configs"."doctor_fee_cents" >= 0 and "clinic_fee_configs"."processor_fee_per_mille" >= 0 and "clinic_fee_configs"."processor_fee_fixed_cents" >= 0)
);
--> statement-breakpoint
CREATE TABLE "conversation_messages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"conversation_id" uuid NOT NULL,
	"author_type" text NOT NULL,
	"author_user_id" uuid,
	"body" text NOT NULL,
	"is_internal_note" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "conversations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"patient_id" uuid,
	"subject" text,
	"status" text DEFAULT 'open' NOT NULL,
	"last_message_at" timestamp with time zone,
	"resolved_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "conversations_status_check" CHECK ("conversations"."status" in ('open', 'resolved'))
);
--> statement-breakpoint
CREATE TABLE "custom_domains" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"hostname" text NOT NULL,
	"status" text DEFAULT 'pending_verification' NOT NULL,
	"verification_token" text NOT NULL,
	"cname_target" text NOT NULL,
	"provider_hostname_id" text,
	"verified_at" timestamp with time zone,
	"activated_at" timestamp with time zone,
	"removed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "custom_domains_status_check" CHECK ("custom_domains"."status" in ('pending_verification', 'verified', 'active', 'removed'))
);
--> statement-breakpoint
CREATE TABLE "email_domains" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"domain" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"dns_records" jsonb NOT NULL,
	"provider_domain_id" text,
	"verified_at" timestamp with time zone,
	"removed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "email_domains_status_check" CHECK ("email_domains"."status" in ('pending', 'verified', 'removed'))
);
--> statement-breakpoint
CREATE TABLE "go_live_requests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"signer_first_name" text NOT NULL,
	"signer_last_name" text NOT NULL,
	"signer_email" text NOT NULL,
	"status" text DEFAULT 'requested' NOT NULL,
	"invitation_id" uuid,
	"completed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "go_live_requests_status_check" CHECK ("go_live_requests"."status" in ('requested', 'completed'))
);
--> statement-breakpoint
CREATE TABLE "invitations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"token_hash" text NOT NULL,
	"invited_by_user_id" uuid,
	"source" text DEFAULT 'team' NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"accepted_at" timestamp with time zone,
	"cancelled_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "invitations_status_check" CHECK ("invitations"."status" in ('pending', 'accepted', 'cancelled', 'expired')),
	CONSTRAINT "invitations_role_check" CHECK ("invitations"."role" in ('admin', 'member'))
);
--> statement-breakpoint
CREATE TABLE "onboarding" (
	"clinic_id" uuid PRIMARY KEY NOT NULL,
	"current_step" text DEFAULT 'business_details' NOT NULL,
	"business_details_submitted_at" timestamp with time zone,
	"signer_first_name" text,
	"signer_last_name" text,
	"signer_email" text,
	"name_change_requested_at" timestamp with time zone,
	"identity_verified_at" timestamp with time zone,
	"signature_typed_name" text,
	"signature_declared_at" timestamp with time zone,
	"plan_paid_at" timestamp with time zone,
	"completed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "onboarding_step_check" CHECK ("onboarding"."current_step" in ('business_details', 'identity_verification', 'agreement', 'plan_payment', 'completed'))
);
--> statement-breakpoint
CREATE TABLE "organizations" (
	"clinic_id" uuid PRIMARY KEY NOT NULL,
	"legal_name" text,
	"doing_business_as" text,
	"ein" text,
	"business_type" text,
	"state_of_registration" text,
	"phone_number" text,
	"website_url" text,
	"support_email" text,
	"support_phone" text,
	"address_line1" text,
	"address_line2" text,
	"city" text,
	"state" text,
	"zip_code" text,
	"timezone" text DEFAULT 'America/New_York' NOT NULL,
	"email_sender_name" text,
	"email_sender_local_part" text,
	"email_reply_to" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payout_accounts" (
	"clinic_id" uuid PRIMARY KEY NOT NULL,
	"processor_account_id" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"charges_enabled" boolean DEFAULT false NOT NULL,
	"payouts_enabled" boolean DEFAULT false NOT NULL,
	"details_submitted" boolean DEFAULT false NOT NULL,
	"requirements_due" text[] DEFAULT '{}'::text[] NOT NULL,
	"status_checked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payout_accounts_status_check" CHECK ("payout_accounts"."status" in ('not_connected', 'pending', 'restricted', 'active'))
);
--> statement-breakpoint
CREATE TABLE "platform_subscriptions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"plan_id" uuid NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"current_period_start" timestamp with time zone NOT NULL,
	"current_period_end" timestamp with time zone NOT NULL,
	"needs_sync" boolean DEFAULT false NOT NULL,
	"processor_subscription_id" text,
	"cancelled_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "platform_subscriptions_status_check" CHECK ("platform_subscriptions"."status" in ('active', 'past_due', 'cancelled', 'expired'))
);
--> statement-breakpoint
CREATE TABLE "sms_configs" (
	"clinic_id" uuid PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"account_sid" text NOT NULL,
	"encrypted_auth_token" text NOT NULL,
	"phone_number" text,
	"provider_number_id" text,
	"status" text DEFAULT 'configured' NOT NULL,
	"activated_at" timestamp with time zone,
	"released_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sms_configs_status_check" CHECK ("sms_configs"."status" in ('configured', 'active', 'released'))
);
--> statement-breakpoint
CREATE TABLE "support_ticket_messages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"ticket_id" uuid NOT NULL,
	"author_type" text NOT NULL,
	"author_user_id" uuid,
	"body" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "support_tickets" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"title" text NOT NULL,
	"description" text NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"assigned_team" text DEFAULT 'support' NOT NULL,
	"assigned_user_id" uuid,
	"resolved_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "support_tickets_status_check" CHECK ("support_tickets"."status" in ('open', 'in_progress', 'waiting_on_customer', 'resolved', 'closed')),
	CONSTRAINT "support_tickets_team_check" CHECK ("support_tickets"."assigned_team" in ('support', 'billing', 'technical', 'clinical'))
);
--> statement-breakpoint
ALTER TABLE "clinics" ADD COLUMN "description" text;--> statement-breakpoint
ALTER TABLE "clinics" ADD COLUMN "logo_url" text;--> statement-breakpoint
ALTER TABLE "clinics" ADD COLUMN "primary_color" text;--> statement-breakpoint
ALTER TABLE "clinics" ADD COLUMN "contact_email" text;--> statement-breakpoint
ALTER TABLE "clinics" ADD COLUMN "contact_phone" text;--> statement-breakpoint
ALTER TABLE "clinics" ADD COLUMN "deactivated_reason" text;--> statement-breakpoint
ALTER TABLE "clinics" ADD COLUMN "deactivated_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_patient_id_patients_id_fk" FOREIGN KEY ("patient_id") REFERENCES "public"."patients"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_connections" ADD CONSTRAINT "crm_connections_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "message_templates" ADD CONSTRAINT "message_templates_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "message_templates" ADD CONSTRAINT "message_templates_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "patient_tags" ADD CONSTRAINT "patient_tags_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "patient_tags" ADD CONSTRAINT "patient_tags_tag_id_tags_id_fk" FOREIGN KEY ("tag_id") REFERENCES "public"."tags"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "patient_tags" ADD CONSTRAINT "patient_tags_patient_id_patients_id_fk" FOREIGN KEY ("patient_id") REFERENCES "public"."patients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sequence_enrollments" ADD CONSTRAINT "sequence_enrollments_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sequence_enrollments" ADD CONSTRAINT "sequence_enrollments_sequence_id_sequences_id_fk" FOREIGN KEY ("sequence_id") REFERENCES "public"."sequences"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sequence_enrollments" ADD CONSTRAINT "sequence_enrollments_patient_id_patients_id_fk" FOREIGN KEY ("patient_id") REFERENCES "public"."patients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sequence_step_runs" ADD CONSTRAINT "sequence_step_runs_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sequence_step_runs" ADD CONSTRAINT "sequence_step_runs_sequence_id_sequences_id_fk" FOREIGN KEY ("sequence_id") REFERENCES "public"."sequences"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sequence_step_runs" ADD CONSTRAINT "sequence_step_runs_enrollment_id_sequence_enrollments_id_fk" FOREIGN KEY ("enrollment_id") REFERENCES "public"."sequence_enrollments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sequence_step_runs" ADD CONSTRAINT "sequence_step_runs_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sequence_steps" ADD CONSTRAINT "sequence_steps_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sequence_steps" ADD CONSTRAINT "sequence_steps_sequence_id_sequences_id_fk" FOREIGN KEY ("sequence_id") REFERENCES "public"."sequences"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sequence_steps" ADD CONSTRAINT "sequence_steps_template_id_message_templates_id_fk" FOREIGN KEY ("template_id") REFERENCES "public"."message_templates"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sequences" ADD CONSTRAINT "sequences_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sequences" ADD CONSTRAINT "sequences_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tags" ADD CONSTRAINT "tags_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "affiliate_commissions" ADD CONSTRAINT "affiliate_commissions_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "affiliate_commissions" ADD CONSTRAINT "affiliate_commissions_affiliate_id_affiliates_id_fk" FOREIGN KEY ("affiliate_id") REFERENCES "public"."affiliates"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "affiliate_commissions" ADD CONSTRAINT "affiliate_commissions_referral_id_affiliate_referrals_id_fk" FOREIGN KEY ("referral_id") REFERENCES "public"."affiliate_referrals"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "affiliate_commissions" ADD CONSTRAINT "affiliate_commissions_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "affiliate_commissions" ADD CONSTRAINT "affiliate_commissions_payout_id_affiliate_payouts_id_fk" FOREIGN KEY ("payout_id") REFERENCES "public"."affiliate_payouts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "affiliate_payouts" ADD CONSTRAINT "affiliate_payouts_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "affiliate_payouts" ADD CONSTRAINT "affiliate_payouts_affiliate_id_affiliates_id_fk" FOREIGN KEY ("affiliate_id") REFERENCES "public"."affiliates"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "affiliate_programs" ADD CONSTRAINT "affiliate_programs_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "affiliate_referrals" ADD CONSTRAINT "affiliate_referrals_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "affiliate_referrals" ADD CONSTRAINT "affiliate_referrals_affiliate_id_affiliates_id_fk" FOREIGN KEY ("affiliate_id") REFERENCES "public"."affiliates"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "affiliate_referrals" ADD CONSTRAINT "affiliate_referrals_patient_id_patients_id_fk" FOREIGN KEY ("patient_id") REFERENCES "public"."patients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "affiliate_tax_documents" ADD CONSTRAINT "affiliate_tax_documents_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "affiliate_tax_documents" ADD CONSTRAINT "affiliate_tax_documents_affiliate_id_affiliates_id_fk" FOREIGN KEY ("affiliate_id") REFERENCES "public"."affiliates"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "affiliate_tiers" ADD CONSTRAINT "affiliate_tiers_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "affiliates" ADD CONSTRAINT "affiliates_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "brand_treatments" ADD CONSTRAINT "brand_treatments_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "brand_treatments" ADD CONSTRAINT "brand_treatments_treatment_id_treatments_id_fk" FOREIGN KEY ("treatment_id") REFERENCES "public"."treatments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "custom_websites" ADD CONSTRAINT "custom_websites_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "custom_websites" ADD CONSTRAINT "custom_websites_logo_upload_id_uploads_id_fk" FOREIGN KEY ("logo_upload_id") REFERENCES "public"."uploads"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "custom_websites" ADD CONSTRAINT "custom_websites_hero_upload_id_uploads_id_fk" FOREIGN KEY ("hero_upload_id") REFERENCES "public"."uploads"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "form_global_products" ADD CONSTRAINT "form_global_products_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "form_global_products" ADD CONSTRAINT "form_global_products_questionnaire_id_questionnaires_id_fk" FOREIGN KEY ("questionnaire_id") REFERENCES "public"."questionnaires"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "form_global_products" ADD CONSTRAINT "form_global_products_global_product_id_global_products_id_fk" FOREIGN KEY ("global_product_id") REFERENCES "public"."global_products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "form_sessions" ADD CONSTRAINT "form_sessions_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "form_sessions" ADD CONSTRAINT "form_sessions_questionnaire_id_questionnaires_id_fk" FOREIGN KEY ("questionnaire_id") REFERENCES "public"."questionnaires"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "form_sessions" ADD CONSTRAINT "form_sessions_program_id_programs_id_fk" FOREIGN KEY ("program_id") REFERENCES "public"."programs"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "form_sessions" ADD CONSTRAINT "form_sessions_patient_id_patients_id_fk" FOREIGN KEY ("patient_id") REFERENCES "public"."patients"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "intake_requests" ADD CONSTRAINT "intake_requests_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "intake_requests" ADD CONSTRAINT "intake_requests_requested_by_user_id_users_id_fk" FOREIGN KEY ("requested_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "navigation_menus" ADD CONSTRAINT "navigation_menus_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "page_versions" ADD CONSTRAINT "page_versions_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "page_versions" ADD CONSTRAINT "page_versions_page_id_pages_id_fk" FOREIGN KEY ("page_id") REFERENCES "public"."pages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pages" ADD CONSTRAINT "pages_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_likes" ADD CONSTRAINT "product_likes_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_likes" ADD CONSTRAINT "product_likes_tenant_product_id_tenant_products_id_fk" FOREIGN KEY ("tenant_product_id") REFERENCES "public"."tenant_products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_likes" ADD CONSTRAINT "product_likes_patient_id_patients_id_fk" FOREIGN KEY ("patient_id") REFERENCES "public"."patients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "teleform_removals" ADD CONSTRAINT "teleform_removals_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "teleform_removals" ADD CONSTRAINT "teleform_removals_questionnaire_id_questionnaires_id_fk" FOREIGN KEY ("questionnaire_id") REFERENCES "public"."questionnaires"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "treatments" ADD CONSTRAINT "treatments_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "clinic_fee_configs" ADD CONSTRAINT "clinic_fee_configs_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversation_messages" ADD CONSTRAINT "conversation_messages_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversation_messages" ADD CONSTRAINT "conversation_messages_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversation_messages" ADD CONSTRAINT "conversation_messages_author_user_id_users_id_fk" FOREIGN KEY ("author_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversations" ADD CONSTRAINT "conversations_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversations" ADD CONSTRAINT "conversations_patient_id_patients_id_fk" FOREIGN KEY ("patient_id") REFERENCES "public"."patients"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "custom_domains" ADD CONSTRAINT "custom_domains_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_domains" ADD CONSTRAINT "email_domains_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "go_live_requests" ADD CONSTRAINT "go_live_requests_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "go_live_requests" ADD CONSTRAINT "go_live_requests_invitation_id_invitations_id_fk" FOREIGN KEY ("invitation_id") REFERENCES "public"."invitations"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_invited_by_user_id_users_id_fk" FOREIGN KEY ("invited_by_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "onboarding" ADD CONSTRAINT "onboarding_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "organizations" ADD CONSTRAINT "organizations_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payout_accounts" ADD CONSTRAINT "payout_accounts_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "platform_subscriptions" ADD CONSTRAINT "platform_subscriptions_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "platform_subscriptions" ADD CONSTRAINT "platform_subscriptions_plan_id_plans_id_fk" FOREIGN KEY ("plan_id") REFERENCES "public"."plans"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sms_configs" ADD CONSTRAINT "sms_configs_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "support_ticket_messages" ADD CONSTRAINT "support_ticket_messages_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "support_ticket_messages" ADD CONSTRAINT "support_ticket_messages_ticket_id_support_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."support_tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "support_ticket_messages" ADD CONSTRAINT "support_ticket_messages_author_user_id_users_id_fk" FOREIGN KEY ("author_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "support_tickets" ADD CONSTRAINT "support_tickets_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "support_tickets" ADD CONSTRAINT "support_tickets_assigned_user_id_users_id_fk" FOREIGN KEY ("assigned_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "messages_clinic_id_created_at_idx" ON "messages" USING btree ("clinic_id","created_at");--> statement-breakpoint
CREATE INDEX "messages_clinic_id_patient_id_idx" ON "messages" USING btree ("clinic_id","patient_id");--> statement-breakpoint
CREATE UNIQUE INDEX "crm_connections_clinic_id_key" ON "crm_connections" USING btree ("clinic_id");--> statement-breakpoint
CREATE INDEX "message_templates_clinic_id_created_at_idx" ON "message_templates" USING btree ("clinic_id","created_at","id") WHERE "message_templates"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "patient_tags_clinic_id_patient_id_idx" ON "patient_tags" USING btree ("clinic_id","patient_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sequence_enrollments_sequence_id_patient_id_key" ON "sequence_enrollments" USING btree ("sequence_id","patient_id");--> statement-breakpoint
CREATE INDEX "sequence_enrollments_due_idx" ON "sequence_enrollments" USING btree ("next_run_at") WHERE "sequence_enrollments"."status" = 'active';--> statement-breakpoint
CREATE INDEX "sequence_enrollments_clinic_id_sequence_id_status_idx" ON "sequence_enrollments" USING btree ("clinic_id","sequence_id","status");--> statement-breakpoint
CREATE UNIQUE INDEX "sequence_step_runs_enrollment_id_step_position_key" ON "sequence_step_runs" USING btree ("enrollment_id","step_position");--> statement-breakpoint
CREATE INDEX "sequence_step_runs_clinic_id_sequence_id_outcome_idx" ON "sequence_step_runs" USING btree ("clinic_id","sequence_id","outcome");--> statement-breakpoint
CREATE UNIQUE INDEX "sequence_steps_sequence_id_position_key" ON "sequence_steps" USING btree ("sequence_id","position");--> statement-breakpoint
CREATE INDEX "sequence_steps_template_id_idx" ON "sequence_steps" USING btree ("template_id");--> statement-breakpoint
CREATE INDEX "sequences_clinic_id_created_at_idx" ON "sequences" USING btree ("clinic_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "tags_clinic_id_name_key" ON "tags" USING btree ("clinic_id",lower("name"));--> statement-breakpoint
CREATE INDEX "tags_clinic_id_created_at_idx" ON "tags" USING btree ("clinic_id","created_at","id");--> statement-breakpoint
CREATE INDEX "tags_clinic_id_category_idx" ON "tags" USING btree ("clinic_id","category");--> statement-breakpoint
CREATE UNIQUE INDEX "affiliate_commissions_order_id_key" ON "affiliate_commissions" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "affiliate_commissions_clinic_id_affiliate_id_earned_at_idx" ON "affiliate_commissions" USING btree ("clinic_id","affiliate_id","earned_at");--> statement-breakpoint
CREATE INDEX "affiliate_commissions_payout_id_idx" ON "affiliate_commissions" USING btree ("payout_id");--> statement-breakpoint
CREATE UNIQUE INDEX "affiliate_payouts_affiliate_period_key" ON "affiliate_payouts" USING btree ("affiliate_id","period_start");--> statement-breakpoint
CREATE INDEX "affiliate_payouts_clinic_id_created_at_idx" ON "affiliate_payouts" USING btree ("clinic_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "affiliate_referrals_clinic_id_patient_id_key" ON "affiliate_referrals" USING btree ("clinic_id","patient_id");--> statement-breakpoint
CREATE INDEX "affiliate_referrals_clinic_id_affiliate_id_idx" ON "affiliate_referrals" USING btree ("clinic_id","affiliate_id");--> statement-breakpoint
CREATE INDEX "affiliate_tax_documents_clinic_id_submitted_at_idx" ON "affiliate_tax_documents" USING btree ("clinic_id","submitted_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "affiliate_tiers_clinic_id_min_active_referrals_key" ON "affiliate_tiers" USING btree ("clinic_id","min_active_referrals");--> statement-breakpoint
CREATE UNIQUE INDEX "affiliates_clinic_id_email_key" ON "affiliates" USING btree ("clinic_id","email");--> statement-breakpoint
CREATE UNIQUE INDEX "affiliates_clinic_id_referral_code_key" ON "affiliates" USING btree ("clinic_id",lower("referral_code"));--> statement-breakpoint
CREATE INDEX "affiliates_clinic_id_created_at_idx" ON "affiliates" USING btree ("clinic_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "brand_treatments_clinic_id_treatment_id_key" ON "brand_treatments" USING btree ("clinic_id","treatment_id");--> statement-breakpoint
CREATE UNIQUE INDEX "form_global_products_questionnaire_id_key" ON "form_global_products" USING btree ("questionnaire_id");--> statement-breakpoint
CREATE INDEX "form_global_products_clinic_id_created_at_idx" ON "form_global_products" USING btree ("clinic_id","created_at");--> statement-breakpoint
CREATE INDEX "form_sessions_clinic_id_questionnaire_id_started_at_idx" ON "form_sessions" USING btree ("clinic_id","questionnaire_id","started_at");--> statement-breakpoint
CREATE INDEX "form_sessions_clinic_id_program_id_started_at_idx" ON "form_sessions" USING btree ("clinic_id","program_id","started_at");--> statement-breakpoint
CREATE INDEX "form_sessions_stale_idx" ON "form_sessions" USING btree ("started_at") WHERE "form_sessions"."status" = 'started';--> statement-breakpoint
CREATE INDEX "intake_requests_clinic_id_created_at_idx" ON "intake_requests" USING btree ("clinic_id","created_at","id");--> statement-breakpoint
CREATE INDEX "notifications_clinic_id_created_at_idx" ON "notifications" USING btree ("clinic_id","created_at","id");--> statement-breakpoint
CREATE INDEX "notifications_clinic_id_unread_idx" ON "notifications" USING btree ("clinic_id") WHERE "notifications"."read_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "page_versions_page_id_version_key" ON "page_versions" USING btree ("page_id","version");--> statement-breakpoint
CREATE UNIQUE INDEX "pages_clinic_id_slug_key" ON "pages" USING btree ("clinic_id","slug") WHERE "pages"."deleted_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "pages_clinic_id_homepage_key" ON "pages" USING btree ("clinic_id") WHERE "pages"."is_homepage" and "pages"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "pages_clinic_id_updated_at_idx" ON "pages" USING btree ("clinic_id","updated_at","id") WHERE "pages"."deleted_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "product_likes_tenant_product_id_patient_id_key" ON "product_likes" USING btree ("tenant_product_id","patient_id");--> statement-breakpoint
CREATE INDEX "product_likes_clinic_id_tenant_product_id_created_at_idx" ON "product_likes" USING btree ("clinic_id","tenant_product_id","created_at");--> statement-breakpoint
CREATE INDEX "teleform_removals_clinic_id_created_at_idx" ON "teleform_removals" USING btree ("clinic_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "treatments_clinic_id_slug_key" ON "treatments" USING btree ("clinic_id","slug");--> statement-breakpoint
CREATE INDEX "treatments_clinic_id_created_at_idx" ON "treatments" USING btree ("clinic_id","created_at","id");--> statement-breakpoint
CREATE INDEX "conversation_messages_conversation_id_created_at_idx" ON "conversation_messages" USING btree ("conversation_id","created_at");--> statement-breakpoint
CREATE INDEX "conversations_clinic_id_last_message_at_idx" ON "conversations" USING btree ("clinic_id","last_message_at");--> statement-breakpoint
CREATE UNIQUE INDEX "custom_domains_hostname_key" ON "custom_domains" USING btree ("hostname") WHERE "custom_domains"."status" <> 'removed';--> statement-breakpoint
CREATE UNIQUE INDEX "custom_domains_clinic_id_current_key" ON "custom_domains" USING btree ("clinic_id") WHERE "custom_domains"."status" <> 'removed';--> statement-breakpoint
CREATE UNIQUE INDEX "email_domains_clinic_id_current_key" ON "email_domains" USING btree ("clinic_id") WHERE "email_domains"."status" <> 'removed';--> statement-breakpoint
CREATE UNIQUE INDEX "go_live_requests_clinic_id_requested_key" ON "go_live_requests" USING btree ("clinic_id") WHERE "go_live_requests"."status" = 'requested';--> statement-breakpoint
CREATE UNIQUE INDEX "invitations_clinic_id_email_pending_key" ON "invitations" USING btree ("clinic_id","email") WHERE "invitations"."status" = 'pending';--> statement-breakpoint
CREATE UNIQUE INDEX "invitations_token_hash_key" ON "invitations" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "invitations_clinic_id_created_at_idx" ON "invitations" USING btree ("clinic_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "payout_accounts_processor_account_id_key" ON "payout_accounts" USING btree ("processor_account_id");--> statement-breakpoint
CREATE UNIQUE INDEX "platform_subscriptions_clinic_id_current_key" ON "platform_subscriptions" USING btree ("clinic_id") WHERE "platform_subscriptions"."status" <> 'cancelled';--> statement-breakpoint
CREATE INDEX "platform_subscriptions_clinic_id_created_at_idx" ON "platform_subscriptions" USING btree ("clinic_id","created_at");--> statement-breakpoint
CREATE INDEX "support_ticket_messages_ticket_id_created_at_idx" ON "support_ticket_messages" USING btree ("ticket_id","created_at");--> statement-breakpoint
CREATE INDEX "support_tickets_clinic_id_created_at_idx" ON "support_tickets" USING btree ("clinic_id","created_at","id");