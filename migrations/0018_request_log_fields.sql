ALTER TABLE "request_logs" ADD COLUMN "path" text;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "error_code" text;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "idempotency_key" text;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "idempotent_replayed" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "rate_limited" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "rate_limit_remaining" integer;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "client_ip" text;--> statement-breakpoint
ALTER TABLE "request_logs" ADD COLUMN "user_agent" text;--> statement-breakpoint
CREATE INDEX "request_logs_clinic_id_request_id_idx" ON "request_logs" USING btree ("clinic_id","request_id");