DROP INDEX "orders_clinic_id_program_id_idx";--> statement-breakpoint
CREATE INDEX "orders_clinic_id_program_id_idx" ON "orders" USING btree ("clinic_id","program_id","created_at");