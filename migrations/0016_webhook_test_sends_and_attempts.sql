ALTER TABLE "webhook_deliveries" ALTER COLUMN "outbox_event_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD COLUMN "error_kind" text;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD COLUMN "response_body" text;--> statement-breakpoint
-- Attempts recorded before: their kind from the text recorded then (docs/webhooks.md, "Attempts").
UPDATE "webhook_attempts" SET "error_kind" = CASE
  WHEN "error" LIKE 'HTTP %' THEN 'http_status'
  WHEN "error" LIKE 'timeout%' THEN 'timeout'
  WHEN "error" LIKE 'not sent: url %resolves to%' OR "error" LIKE 'not sent: url %has no address%' OR "error" LIKE 'not sent: the URL''s addresses%' THEN 'dns'
  WHEN "error" ~* '(tls|ssl|certificate)' THEN 'tls'
  WHEN "error" ~* '(reset|closed|hang up|parse|invalid)' THEN 'invalid_response'
  ELSE 'connection_refused'
END WHERE "error" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "is_test" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_test_created_at_idx" ON "webhook_deliveries" USING btree ("created_at") WHERE "webhook_deliveries"."is_test";--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_error_kind_check" CHECK ("webhook_attempts"."error_kind" in ('timeout', 'connection_refused', 'dns', 'tls', 'invalid_response', 'http_status'));--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_test_event_check" CHECK ("webhook_deliveries"."is_test" = ("webhook_deliveries"."outbox_event_id" is null));