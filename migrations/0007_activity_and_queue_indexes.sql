CREATE INDEX "order_events_clinic_id_created_at_idx" ON "order_events" USING btree ("clinic_id","created_at","seq");--> statement-breakpoint
CREATE INDEX "payments_clinic_id_created_at_idx" ON "payments" USING btree ("clinic_id","created_at");--> statement-breakpoint
CREATE INDEX "messages_queued_idx" ON "messages" USING btree ("created_at") WHERE "messages"."status" = 'queued';