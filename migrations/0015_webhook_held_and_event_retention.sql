ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_status_check";--> statement-breakpoint
CREATE INDEX "outbox_events_created_at_idx" ON "outbox_events" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_outbox_event_id_idx" ON "webhook_deliveries" USING btree ("outbox_event_id","endpoint_id");--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_status_check" CHECK ("webhook_deliveries"."status" in ('pending', 'held', 'succeeded', 'failed'));