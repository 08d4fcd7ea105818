-- The text searches of the lists (docs/orders.md, "Filters"): `q` of GET /orders (order number, patient
-- email) and of GET /customers and /contacts (full name, email) are ILIKE '%...%' substrings, which a
-- btree cannot serve; trigram GIN indexes can (for a search of 3 characters or more). pg_trgm ships with
-- PostgreSQL (contrib) and is a trusted extension (PostgreSQL 13+): the database owner may create it.
-- The patient expressions must stay the ones src/platform/db/sql.ts (patientMatches) searches.
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "orders_order_number_trgm_idx" ON "orders" USING gin ("order_number" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "patients_email_trgm_idx" ON "patients" USING gin ("email" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "patients_full_name_trgm_idx" ON "patients" USING gin (("first_name" || ' ' || "last_name") gin_trgm_ops);
