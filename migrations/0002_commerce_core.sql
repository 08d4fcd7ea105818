CREATE TABLE "form_structures" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"category" text NOT NULL,
	"structure" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "global_products" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"categories" text[] DEFAULT '{}'::text[] NOT NULL,
	"description" text,
	"image_url" text,
	"pharmacy_base_price_cents" integer NOT NULL,
	"pack_duration_months" integer DEFAULT 1 NOT NULL,
	"vials_per_pack" integer DEFAULT 1 NOT NULL,
	"supply_days" integer DEFAULT 30 NOT NULL,
	"requires_cooler" boolean DEFAULT false NOT NULL,
	"allow_prepay" boolean DEFAULT false NOT NULL,
	"is_discontinued" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "global_products_price_check" CHECK ("global_products"."pharmacy_base_price_cents" >= 0),
	CONSTRAINT "global_products_pack_check" CHECK ("global_products"."pack_duration_months" > 0 and "global_products"."vials_per_pack" > 0 and "global_products"."supply_days" > 0)
);
--> statement-breakpoint
CREATE TABLE "pharmacies" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "pharmacy_coverages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"global_product_id" uuid NOT NULL,
	"pharmacy_id" uuid NOT NULL,
	"role" text DEFAULT 'primary' NOT NULL,
	"custom_name" text,
	"price_cents" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "pharmacy_coverages_role_check" CHECK ("pharmacy_coverages"."role" in ('primary', 'backup')),
	CONSTRAINT "pharmacy_coverages_price_check" CHECK ("pharmacy_coverages"."price_cents" >= 0)
);
--> statement-breakpoint
CREATE TABLE "program_template_products" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"template_id" uuid NOT NULL,
	"global_product_id" uuid NOT NULL,
	"display_order" integer DEFAULT 0 NOT NULL,
	"is_patient_visible" boolean DEFAULT true NOT NULL,
	"program_base_fee_cents" integer
);
--> statement-breakpoint
CREATE TABLE "program_templates" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"description" text,
	"non_medical_service_fee_cents" integer DEFAULT 0 NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "titration_protocols" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"levels" jsonb NOT NULL,
	"max_level" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "global_product_image_overrides" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"global_product_id" uuid NOT NULL,
	"image_url" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "processor_prices" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"processor_price_id" text NOT NULL,
	"reference" text NOT NULL,
	"unit_amount_cents" integer NOT NULL,
	"currency" text DEFAULT 'usd' NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "product_pharmacy_coverages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"product_id" uuid NOT NULL,
	"pharmacy_id" uuid NOT NULL,
	"role" text DEFAULT 'primary' NOT NULL,
	"custom_name" text,
	"price_cents" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "products" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"description" text,
	"category" text,
	"categories" text[] DEFAULT '{}'::text[] NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"pharmacy_provider" text,
	"pharmacy_price_cents" integer DEFAULT 0 NOT NULL,
	"pharmacy_product_id" text,
	"brand_name" text,
	"image_url" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "products_pharmacy_price_check" CHECK ("products"."pharmacy_price_cents" >= 0)
);
--> statement-breakpoint
CREATE TABLE "questionnaires" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"name" text NOT NULL,
	"form_structure_id" uuid,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tenant_product_selections" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"tenant_product_id" uuid NOT NULL,
	"questionnaire_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tenant_products" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"global_product_id" uuid NOT NULL,
	"facilitation_fee_cents" integer DEFAULT 0 NOT NULL,
	"price_cents" integer,
	"processor_price_id" text,
	"placeholder_fee_cents" integer,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tenant_products_money_check" CHECK ("tenant_products"."facilitation_fee_cents" >= 0 and ("tenant_products"."price_cents" is null or "tenant_products"."price_cents" >= 0) and ("tenant_products"."placeholder_fee_cents" is null or "tenant_products"."placeholder_fee_cents" >= 0))
);
--> statement-breakpoint
CREATE TABLE "uploads" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"object_key" text NOT NULL,
	"content_type" text NOT NULL,
	"size_bytes" integer NOT NULL,
	"purpose" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "program_products" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"program_id" uuid NOT NULL,
	"global_product_id" uuid NOT NULL,
	"display_order" integer DEFAULT 0 NOT NULL,
	"is_patient_visible" boolean DEFAULT true NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"link_source" text DEFAULT 'program' NOT NULL,
	"program_base_fee_cents" integer,
	"clinic_fee_override_cents" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "program_products_fees_check" CHECK (("program_products"."program_base_fee_cents" is null or "program_products"."program_base_fee_cents" >= 0) and ("program_products"."clinic_fee_override_cents" is null or "program_products"."clinic_fee_override_cents" >= 0))
);
--> statement-breakpoint
CREATE TABLE "program_titration_protocols" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"program_id" uuid NOT NULL,
	"titration_protocol_id" uuid NOT NULL,
	"flat_fee_cents" integer DEFAULT 0 NOT NULL,
	"allowed_billing_months" integer[] DEFAULT '{}'::integer[] NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "program_titration_protocols_fee_check" CHECK ("program_titration_protocols"."flat_fee_cents" >= 0)
);
--> statement-breakpoint
CREATE TABLE "programs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"state" text DEFAULT 'draft' NOT NULL,
	"is_active" boolean DEFAULT false NOT NULL,
	"is_featured" boolean DEFAULT false NOT NULL,
	"non_medical_service_fee_cents" integer DEFAULT 0 NOT NULL,
	"hero_image_url" text,
	"custom_slug" text,
	"accent_color" text,
	"template_id" uuid,
	"template_version" integer,
	"retired_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "programs_state_check" CHECK ("programs"."state" in ('draft', 'live', 'paused', 'retired')),
	CONSTRAINT "programs_fee_check" CHECK ("programs"."non_medical_service_fee_cents" >= 0)
);
--> statement-breakpoint
CREATE TABLE "enrollments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"patient_id" uuid NOT NULL,
	"program_id" uuid NOT NULL,
	"global_product_id" uuid,
	"status" text DEFAULT 'active' NOT NULL,
	"billing_interval_months" integer DEFAULT 1 NOT NULL,
	"charge_amount_cents" integer NOT NULL,
	"net_amount_cents" integer NOT NULL,
	"next_charge_at" timestamp with time zone,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ended_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "enrollments_status_check" CHECK ("enrollments"."status" in ('active', 'paused', 'cancelled', 'completed')),
	CONSTRAINT "enrollments_amounts_check" CHECK ("enrollments"."charge_amount_cents" >= 0 and "enrollments"."billing_interval_months" > 0)
);
--> statement-breakpoint
CREATE TABLE "patients" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"first_name" text NOT NULL,
	"last_name" text NOT NULL,
	"email" text NOT NULL,
	"phone_number" text,
	"email_opted_out" boolean DEFAULT false NOT NULL,
	"sms_opted_out" boolean DEFAULT false NOT NULL,
	"opt_out_date" timestamp with time zone,
	"last_login_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "patients_email_lower_check" CHECK ("patients"."email" = lower("patients"."email"))
);
--> statement-breakpoint
CREATE TABLE "coupon_redemptions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"coupon_id" uuid NOT NULL,
	"patient_id" uuid,
	"order_id" uuid,
	"order_amount_cents" integer NOT NULL,
	"discount_cents" integer NOT NULL,
	"redeemed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "coupons" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"code" text NOT NULL,
	"description" text,
	"discount_type" text NOT NULL,
	"discount_value_hundredths" integer NOT NULL,
	"starts_at" timestamp with time zone,
	"expires_at" timestamp with time zone,
	"is_active" boolean DEFAULT true NOT NULL,
	"scope" text DEFAULT 'first_charge' NOT NULL,
	"over_margin_behavior" text DEFAULT 'reject' NOT NULL,
	"max_redemptions" integer,
	"per_customer_limit" integer,
	"min_order_amount_cents" integer,
	"deleted_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "coupons_value_check" CHECK ("coupons"."discount_value_hundredths" > 0)
);
--> statement-breakpoint
CREATE TABLE "price_change_alerts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"clinic_id" uuid NOT NULL,
	"product_id" uuid,
	"program_id" uuid,
	"global_product_id" uuid,
	"direction" text NOT NULL,
	"previous_pharmacy_price_cents" integer,
	"new_pharmacy_price_cents" integer,
	"current_program_fee_cents" integer,
	"suggested_program_fee_cents" integer,
	"per_unit_margin_delta_cents" integer,
	"status" text DEFAULT 'open' NOT NULL,
	"acknowledged_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "price_change_alerts_direction_check" CHECK ("price_change_alerts"."direction" in ('increase', 'decrease')),
	CONSTRAINT "price_change_alerts_status_check" CHECK ("price_change_alerts"."status" in ('open', 'acknowledged'))
);
--> statement-breakpoint
ALTER TABLE "plans" ADD COLUMN "max_selected_products" integer;--> statement-breakpoint
ALTER TABLE "plans" ADD COLUMN "max_product_price_cents" integer;--> statement-breakpoint
ALTER TABLE "pharmacy_coverages" ADD CONSTRAINT "pharmacy_coverages_global_product_id_global_products_id_fk" FOREIGN KEY ("global_product_id") REFERENCES "public"."global_products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pharmacy_coverages" ADD CONSTRAINT "pharmacy_coverages_pharmacy_id_pharmacies_id_fk" FOREIGN KEY ("pharmacy_id") REFERENCES "public"."pharmacies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "program_template_products" ADD CONSTRAINT "program_template_products_template_id_program_templates_id_fk" FOREIGN KEY ("template_id") REFERENCES "public"."program_templates"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "program_template_products" ADD CONSTRAINT "program_template_products_global_product_id_global_products_id_fk" FOREIGN KEY ("global_product_id") REFERENCES "public"."global_products"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "global_product_image_overrides" ADD CONSTRAINT "global_product_image_overrides_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "global_product_image_overrides" ADD CONSTRAINT "global_product_image_overrides_global_product_id_global_products_id_fk" FOREIGN KEY ("global_product_id") REFERENCES "public"."global_products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "processor_prices" ADD CONSTRAINT "processor_prices_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_pharmacy_coverages" ADD CONSTRAINT "product_pharmacy_coverages_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_pharmacy_coverages" ADD CONSTRAINT "product_pharmacy_coverages_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_pharmacy_coverages" ADD CONSTRAINT "product_pharmacy_coverages_pharmacy_id_pharmacies_id_fk" FOREIGN KEY ("pharmacy_id") REFERENCES "public"."pharmacies"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "products" ADD CONSTRAINT "products_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "questionnaires" ADD CONSTRAINT "questionnaires_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "questionnaires" ADD CONSTRAINT "questionnaires_form_structure_id_form_structures_id_fk" FOREIGN KEY ("form_structure_id") REFERENCES "public"."form_structures"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenant_product_selections" ADD CONSTRAINT "tenant_product_selections_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenant_product_selections" ADD CONSTRAINT "tenant_product_selections_tenant_product_id_tenant_products_id_fk" FOREIGN KEY ("tenant_product_id") REFERENCES "public"."tenant_products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenant_product_selections" ADD CONSTRAINT "tenant_product_selections_questionnaire_id_questionnaires_id_fk" FOREIGN KEY ("questionnaire_id") REFERENCES "public"."questionnaires"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenant_products" ADD CONSTRAINT "tenant_products_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenant_products" ADD CONSTRAINT "tenant_products_global_product_id_global_products_id_fk" FOREIGN KEY ("global_product_id") REFERENCES "public"."global_products"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "uploads" ADD CONSTRAINT "uploads_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "program_products" ADD CONSTRAINT "program_products_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "program_products" ADD CONSTRAINT "program_products_program_id_programs_id_fk" FOREIGN KEY ("program_id") REFERENCES "public"."programs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "program_products" ADD CONSTRAINT "program_products_global_product_id_global_products_id_fk" FOREIGN KEY ("global_product_id") REFERENCES "public"."global_products"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "program_titration_protocols" ADD CONSTRAINT "program_titration_protocols_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "program_titration_protocols" ADD CONSTRAINT "program_titration_protocols_program_id_programs_id_fk" FOREIGN KEY ("program_id") REFERENCES "public"."programs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "program_titration_protocols" ADD CONSTRAINT "program_titration_protocols_titration_protocol_id_titration_protocols_id_fk" FOREIGN KEY ("titration_protocol_id") REFERENCES "public"."titration_protocols"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "programs" ADD CONSTRAINT "programs_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "programs" ADD CONSTRAINT "programs_template_id_program_templates_id_fk" FOREIGN KEY ("template_id") REFERENCES "public"."program_templates"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "enrollments" ADD CONSTRAINT "enrollments_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "enrollments" ADD CONSTRAINT "enrollments_patient_id_patients_id_fk" FOREIGN KEY ("patient_id") REFERENCES "public"."patients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "enrollments" ADD CONSTRAINT "enrollments_program_id_programs_id_fk" FOREIGN KEY ("program_id") REFERENCES "public"."programs"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "enrollments" ADD CONSTRAINT "enrollments_global_product_id_global_products_id_fk" FOREIGN KEY ("global_product_id") REFERENCES "public"."global_products"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "patients" ADD CONSTRAINT "patients_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "coupon_redemptions" ADD CONSTRAINT "coupon_redemptions_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "coupon_redemptions" ADD CONSTRAINT "coupon_redemptions_coupon_id_coupons_id_fk" FOREIGN KEY ("coupon_id") REFERENCES "public"."coupons"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "coupon_redemptions" ADD CONSTRAINT "coupon_redemptions_patient_id_patients_id_fk" FOREIGN KEY ("patient_id") REFERENCES "public"."patients"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "coupons" ADD CONSTRAINT "coupons_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "price_change_alerts" ADD CONSTRAINT "price_change_alerts_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "price_change_alerts" ADD CONSTRAINT "price_change_alerts_program_id_programs_id_fk" FOREIGN KEY ("program_id") REFERENCES "public"."programs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "price_change_alerts" ADD CONSTRAINT "price_change_alerts_global_product_id_global_products_id_fk" FOREIGN KEY ("global_product_id") REFERENCES "public"."global_products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "form_structures_slug_key" ON "form_structures" USING btree ("slug");--> statement-breakpoint
CREATE UNIQUE INDEX "global_products_slug_key" ON "global_products" USING btree ("slug");--> statement-breakpoint
CREATE INDEX "global_products_name_idx" ON "global_products" USING btree ("name");--> statement-breakpoint
CREATE UNIQUE INDEX "pharmacies_slug_key" ON "pharmacies" USING btree ("slug");--> statement-breakpoint
CREATE UNIQUE INDEX "pharmacy_coverages_product_pharmacy_key" ON "pharmacy_coverages" USING btree ("global_product_id","pharmacy_id");--> statement-breakpoint
CREATE INDEX "pharmacy_coverages_pharmacy_id_idx" ON "pharmacy_coverages" USING btree ("pharmacy_id");--> statement-breakpoint
CREATE UNIQUE INDEX "program_template_products_template_product_key" ON "program_template_products" USING btree ("template_id","global_product_id");--> statement-breakpoint
CREATE INDEX "program_template_products_global_product_id_idx" ON "program_template_products" USING btree ("global_product_id");--> statement-breakpoint
CREATE UNIQUE INDEX "program_templates_slug_key" ON "program_templates" USING btree ("slug");--> statement-breakpoint
CREATE INDEX "titration_protocols_name_idx" ON "titration_protocols" USING btree ("name");--> statement-breakpoint
CREATE UNIQUE INDEX "global_product_image_overrides_clinic_product_key" ON "global_product_image_overrides" USING btree ("clinic_id","global_product_id");--> statement-breakpoint
CREATE UNIQUE INDEX "processor_prices_processor_price_id_key" ON "processor_prices" USING btree ("processor_price_id");--> statement-breakpoint
CREATE INDEX "processor_prices_clinic_id_created_at_idx" ON "processor_prices" USING btree ("clinic_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "product_pharmacy_coverages_product_pharmacy_key" ON "product_pharmacy_coverages" USING btree ("product_id","pharmacy_id");--> statement-breakpoint
CREATE INDEX "product_pharmacy_coverages_clinic_id_idx" ON "product_pharmacy_coverages" USING btree ("clinic_id");--> statement-breakpoint
CREATE UNIQUE INDEX "products_clinic_id_slug_key" ON "products" USING btree ("clinic_id","slug");--> statement-breakpoint
CREATE INDEX "products_clinic_id_created_at_idx" ON "products" USING btree ("clinic_id","created_at");--> statement-breakpoint
CREATE INDEX "questionnaires_clinic_id_created_at_idx" ON "questionnaires" USING btree ("clinic_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "tenant_product_selections_product_questionnaire_key" ON "tenant_product_selections" USING btree ("tenant_product_id","questionnaire_id");--> statement-breakpoint
CREATE INDEX "tenant_product_selections_clinic_id_idx" ON "tenant_product_selections" USING btree ("clinic_id");--> statement-breakpoint
CREATE INDEX "tenant_product_selections_questionnaire_id_idx" ON "tenant_product_selections" USING btree ("questionnaire_id");--> statement-breakpoint
CREATE UNIQUE INDEX "tenant_products_clinic_id_global_product_id_key" ON "tenant_products" USING btree ("clinic_id","global_product_id");--> statement-breakpoint
CREATE INDEX "tenant_products_global_product_id_idx" ON "tenant_products" USING btree ("global_product_id");--> statement-breakpoint
CREATE UNIQUE INDEX "uploads_object_key_key" ON "uploads" USING btree ("object_key");--> statement-breakpoint
CREATE INDEX "uploads_clinic_id_created_at_idx" ON "uploads" USING btree ("clinic_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "program_products_program_id_global_product_id_key" ON "program_products" USING btree ("program_id","global_product_id");--> statement-breakpoint
CREATE INDEX "program_products_clinic_id_program_id_idx" ON "program_products" USING btree ("clinic_id","program_id","display_order");--> statement-breakpoint
CREATE INDEX "program_products_global_product_id_idx" ON "program_products" USING btree ("global_product_id");--> statement-breakpoint
CREATE INDEX "program_titration_protocols_clinic_id_program_id_idx" ON "program_titration_protocols" USING btree ("clinic_id","program_id","position");--> statement-breakpoint
CREATE INDEX "program_titration_protocols_protocol_id_idx" ON "program_titration_protocols" USING btree ("titration_protocol_id");--> statement-breakpoint
CREATE INDEX "programs_clinic_id_created_at_idx" ON "programs" USING btree ("clinic_id","created_at");--> statement-breakpoint
CREATE INDEX "programs_clinic_id_state_idx" ON "programs" USING btree ("clinic_id","state");--> statement-breakpoint
CREATE INDEX "programs_template_id_idx" ON "programs" USING btree ("template_id");--> statement-breakpoint
CREATE UNIQUE INDEX "programs_clinic_id_custom_slug_key" ON "programs" USING btree ("clinic_id","custom_slug") WHERE "programs"."custom_slug" is not null;--> statement-breakpoint
CREATE INDEX "enrollments_clinic_id_program_id_status_idx" ON "enrollments" USING btree ("clinic_id","program_id","status");--> statement-breakpoint
CREATE INDEX "enrollments_clinic_id_patient_id_idx" ON "enrollments" USING btree ("clinic_id","patient_id");--> statement-breakpoint
CREATE INDEX "enrollments_program_id_idx" ON "enrollments" USING btree ("program_id");--> statement-breakpoint
CREATE UNIQUE INDEX "patients_clinic_id_email_key" ON "patients" USING btree ("clinic_id","email");--> statement-breakpoint
CREATE INDEX "patients_clinic_id_created_at_idx" ON "patients" USING btree ("clinic_id","created_at");--> statement-breakpoint
CREATE INDEX "coupon_redemptions_clinic_id_coupon_id_idx" ON "coupon_redemptions" USING btree ("clinic_id","coupon_id","redeemed_at");--> statement-breakpoint
CREATE INDEX "coupon_redemptions_coupon_id_patient_id_idx" ON "coupon_redemptions" USING btree ("coupon_id","patient_id");--> statement-breakpoint
CREATE UNIQUE INDEX "coupons_clinic_id_code_key" ON "coupons" USING btree ("clinic_id",lower("code")) WHERE "coupons"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "coupons_clinic_id_created_at_idx" ON "coupons" USING btree ("clinic_id","created_at");--> statement-breakpoint
CREATE INDEX "price_change_alerts_clinic_id_status_created_at_idx" ON "price_change_alerts" USING btree ("clinic_id","status","created_at");