CREATE TABLE "clinic_rollups" (
	"clinic_id" uuid NOT NULL,
	"dim" text NOT NULL,
	"key" text NOT NULL,
	"orders" bigint DEFAULT 0 NOT NULL,
	"paid_orders" bigint DEFAULT 0 NOT NULL,
	"gross_cents" bigint DEFAULT 0 NOT NULL,
	"refunded_orders" bigint DEFAULT 0 NOT NULL,
	"refunded_cents" bigint DEFAULT 0 NOT NULL,
	"kept_brand_cents" bigint DEFAULT 0 NOT NULL,
	"kept_pharmacy_cents" bigint DEFAULT 0 NOT NULL,
	"kept_doctor_cents" bigint DEFAULT 0 NOT NULL,
	"kept_processor_cents" bigint DEFAULT 0 NOT NULL,
	"kept_platform_cents" bigint DEFAULT 0 NOT NULL,
	"kept_tax_cents" bigint DEFAULT 0 NOT NULL,
	"kept_shipping_cents" bigint DEFAULT 0 NOT NULL,
	"in_progress_orders" bigint DEFAULT 0 NOT NULL,
	"attention_orders" bigint DEFAULT 0 NOT NULL,
	"refund_requests" bigint DEFAULT 0 NOT NULL,
	"patients" bigint DEFAULT 0 NOT NULL,
	"active_patients" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "clinic_rollups_clinic_id_dim_key_pk" PRIMARY KEY("clinic_id","dim","key")
);
--> statement-breakpoint
CREATE TABLE "order_rollup_facts" (
	"order_id" uuid PRIMARY KEY NOT NULL,
	"clinic_id" uuid NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"status" text NOT NULL,
	"program_key" text NOT NULL,
	"state_key" text NOT NULL,
	"paid" boolean NOT NULL,
	"total_cents" bigint NOT NULL,
	"refunded" boolean NOT NULL,
	"refunded_cents" bigint NOT NULL,
	"brand_cents" bigint NOT NULL,
	"pharmacy_cents" bigint NOT NULL,
	"doctor_cents" bigint NOT NULL,
	"processor_cents" bigint NOT NULL,
	"platform_cents" bigint NOT NULL,
	"tax_cents" bigint NOT NULL,
	"shipping_cents" bigint NOT NULL,
	"in_progress" boolean NOT NULL,
	"attention_at" timestamp with time zone,
	"attention_payment_id" uuid
);
--> statement-breakpoint
CREATE TABLE "patient_rollup_facts" (
	"patient_id" uuid PRIMARY KEY NOT NULL,
	"clinic_id" uuid NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"active" boolean NOT NULL
);
--> statement-breakpoint
ALTER TABLE "clinic_rollups" ADD CONSTRAINT "clinic_rollups_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "order_rollup_facts_clinic_id_created_at_idx" ON "order_rollup_facts" USING btree ("clinic_id","created_at");--> statement-breakpoint
CREATE INDEX "order_rollup_facts_attention_idx" ON "order_rollup_facts" USING btree ("clinic_id","attention_at" DESC NULLS LAST,"order_id" DESC NULLS LAST) WHERE "order_rollup_facts"."attention_at" is not null;--> statement-breakpoint
-- Hand-written from here: the functions and statement-level triggers that keep the rollups in the
-- same transaction as every write to orders, refunds, payments, refund_requests, patients and
-- enrollments (whoever writes: the lifecycle, refunds, seeds, sandbox data, tests, cascades), and the
-- backfill. Definitions: docs/orders.md ("Rollups").

-- What the given orders add to the rollups now (the same definitions as the reports' from-scratch queries).
CREATE FUNCTION order_rollup_current(ids uuid[]) RETURNS SETOF order_rollup_facts LANGUAGE sql STABLE AS $$
  SELECT o.id, o.clinic_id, o.created_at, o.status, coalesce(o.program_id::text, ''), coalesce(upper(o.shipping_state), ''),
    o.paid_at IS NOT NULL, o.total_cents, r.order_id IS NOT NULL, coalesce(r.amount_cents, 0),
    o.brand_amount_cents, coalesce((o.fee_breakdown->>'pharmacyCost')::bigint, 0), coalesce((o.fee_breakdown->>'doctorFee')::bigint, 0),
    coalesce((o.fee_breakdown->>'processorFee')::bigint, 0), coalesce((o.fee_breakdown->>'platformFee')::bigint, 0),
    o.tax_cents, o.shipping_cents,
    o.status IN ('paid', 'awaiting_lab_results', 'awaiting_doctor_review', 'doctor_approved', 'sent_to_pharmacy', 'shipped'),
    CASE WHEN lp.status = 'failed' AND o.status NOT IN ('cancelled', 'refunded') THEN coalesce(lp.failed_at, lp.created_at) END,
    CASE WHEN lp.status = 'failed' AND o.status NOT IN ('cancelled', 'refunded') THEN lp.id END
  FROM orders o
  LEFT JOIN refunds r ON r.order_id = o.id AND r.clinic_id = o.clinic_id AND r.status = 'succeeded'
  LEFT JOIN LATERAL (
    SELECT p.id, p.status, p.failed_at, p.created_at FROM payments p
    WHERE p.clinic_id = o.clinic_id AND p.order_id = o.id ORDER BY p.created_at DESC, p.id DESC LIMIT 1
  ) lp ON true
  WHERE o.id = ANY (ids)
$$;
--> statement-breakpoint
-- Moves the rollups by (the orders' figures now) - (their figures as last counted), then records the
-- figures now. The clinic's `total` row is locked first (rows in a fixed order), so concurrent writers
-- of one clinic queue on it and never deadlock on the others.
CREATE FUNCTION refresh_order_rollups(ids uuid[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF ids IS NULL OR cardinality(ids) = 0 THEN RETURN; END IF;
  WITH d AS (
    SELECT 1 AS s, c.* FROM order_rollup_current(ids) c
    UNION ALL
    SELECT -1, f.* FROM order_rollup_facts f WHERE f.order_id = ANY (ids)
  ),
  k AS (
    SELECT d.clinic_id, k.dim, k.key,
      sum(d.s) AS orders,
      sum(d.s) FILTER (WHERE d.paid) AS paid_orders,
      sum(d.s * d.total_cents) FILTER (WHERE d.paid) AS gross_cents,
      sum(d.s) FILTER (WHERE d.refunded) AS refunded_orders,
      sum(d.s * d.refunded_cents) FILTER (WHERE d.refunded) AS refunded_cents,
      sum(d.s * d.brand_cents) FILTER (WHERE d.paid AND NOT d.refunded) AS kept_brand_cents,
      sum(d.s * d.pharmacy_cents) FILTER (WHERE d.paid AND NOT d.refunded) AS kept_pharmacy_cents,
      sum(d.s * d.doctor_cents) FILTER (WHERE d.paid AND NOT d.refunded) AS kept_doctor_cents,
      sum(d.s * d.processor_cents) FILTER (WHERE d.paid AND NOT d.refunded) AS kept_processor_cents,
      sum(d.s * d.platform_cents) FILTER (WHERE d.paid AND NOT d.refunded) AS kept_platform_cents,
      sum(d.s * d.tax_cents) FILTER (WHERE d.paid AND NOT d.refunded) AS kept_tax_cents,
      sum(d.s * d.shipping_cents) FILTER (WHERE d.paid AND NOT d.refunded) AS kept_shipping_cents,
      sum(d.s) FILTER (WHERE d.in_progress) AS in_progress_orders,
      sum(d.s) FILTER (WHERE d.attention_at IS NOT NULL) AS attention_orders
    FROM d CROSS JOIN LATERAL (VALUES
      ('total', ''), ('status', d.status), ('program', d.program_key), ('state', d.state_key),
      ('day', to_char(d.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')),
      ('hour', to_char(d.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24'))
    ) k(dim, key)
    WHERE EXISTS (SELECT 1 FROM clinics c WHERE c.id = d.clinic_id)
    GROUP BY 1, 2, 3
  )
  INSERT INTO clinic_rollups AS r (clinic_id, dim, key, orders, paid_orders, gross_cents, refunded_orders, refunded_cents,
    kept_brand_cents, kept_pharmacy_cents, kept_doctor_cents, kept_processor_cents, kept_platform_cents, kept_tax_cents,
    kept_shipping_cents, in_progress_orders, attention_orders)
  SELECT clinic_id, dim, key, orders, coalesce(paid_orders, 0), coalesce(gross_cents, 0), coalesce(refunded_orders, 0),
    coalesce(refunded_cents, 0), coalesce(kept_brand_cents, 0), coalesce(kept_pharmacy_cents, 0), coalesce(kept_doctor_cents, 0),
    coalesce(kept_processor_cents, 0), coalesce(kept_platform_cents, 0), coalesce(kept_tax_cents, 0),
    coalesce(kept_shipping_cents, 0), coalesce(in_progress_orders, 0), coalesce(attention_orders, 0)
  FROM k
  ORDER BY clinic_id, dim <> 'total', dim, key
  ON CONFLICT (clinic_id, dim, key) DO UPDATE SET
    orders = r.orders + excluded.orders,
    paid_orders = r.paid_orders + excluded.paid_orders,
    gross_cents = r.gross_cents + excluded.gross_cents,
    refunded_orders = r.refunded_orders + excluded.refunded_orders,
    refunded_cents = r.refunded_cents + excluded.refunded_cents,
    kept_brand_cents = r.kept_brand_cents + excluded.kept_brand_cents,
    kept_pharmacy_cents = r.kept_pharmacy_cents + excluded.kept_pharmacy_cents,
    kept_doctor_cents = r.kept_doctor_cents + excluded.kept_doctor_cents,
    kept_processor_cents = r.kept_processor_cents + excluded.kept_processor_cents,
    kept_platform_cents = r.kept_platform_cents + excluded.kept_platform_cents,
    kept_tax_cents = r.kept_tax_cents + excluded.kept_tax_cents,
    kept_shipping_cents = r.kept_shipping_cents + excluded.kept_shipping_cents,
    in_progress_orders = r.in_progress_orders + excluded.in_progress_orders,
    attention_orders = r.attention_orders + excluded.attention_orders;
  DELETE FROM order_rollup_facts WHERE order_id = ANY (ids);
  INSERT INTO order_rollup_facts SELECT * FROM order_rollup_current(ids);
END $$;
--> statement-breakpoint
-- What the given patients add now: counted by created_at, and whether they have an active enrollment.
CREATE FUNCTION refresh_patient_rollups(ids uuid[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF ids IS NULL OR cardinality(ids) = 0 THEN RETURN; END IF;
  WITH cur AS (
    SELECT p.id AS patient_id, p.clinic_id, p.created_at,
      EXISTS (SELECT 1 FROM enrollments e WHERE e.clinic_id = p.clinic_id AND e.patient_id = p.id AND e.status = 'active') AS active
    FROM patients p WHERE p.id = ANY (ids)
  ),
  d AS (
    SELECT 1 AS s, cur.* FROM cur
    UNION ALL
    SELECT -1, f.patient_id, f.clinic_id, f.created_at, f.active FROM patient_rollup_facts f WHERE f.patient_id = ANY (ids)
  ),
  k AS (
    SELECT d.clinic_id, k.dim, k.key, sum(d.s) AS patients, coalesce(sum(d.s) FILTER (WHERE d.active AND k.dim = 'total'), 0) AS active_patients
    FROM d CROSS JOIN LATERAL (VALUES
      ('total', ''),
      ('day', to_char(d.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')),
      ('hour', to_char(d.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24'))
    ) k(dim, key)
    WHERE EXISTS (SELECT 1 FROM clinics c WHERE c.id = d.clinic_id)
    GROUP BY 1, 2, 3
  )
  INSERT INTO clinic_rollups AS r (clinic_id, dim, key, patients, active_patients)
  SELECT clinic_id, dim, key, patients, active_patients FROM k
  ORDER BY clinic_id, dim <> 'total', dim, key
  ON CONFLICT (clinic_id, dim, key) DO UPDATE SET
    patients = r.patients + excluded.patients, active_patients = r.active_patients + excluded.active_patients;
  DELETE FROM patient_rollup_facts WHERE patient_id = ANY (ids);
  INSERT INTO patient_rollup_facts (patient_id, clinic_id, created_at, active)
  SELECT p.id, p.clinic_id, p.created_at,
    EXISTS (SELECT 1 FROM enrollments e WHERE e.clinic_id = p.clinic_id AND e.patient_id = p.id AND e.status = 'active')
  FROM patients p WHERE p.id = ANY (ids);
END $$;
--> statement-breakpoint
-- Refund requests by status: their own rows are all that counts (+1 for the new rows, -1 for the old).
CREATE FUNCTION add_refund_request_rollups(clinic_ids uuid[], statuses text[], signs int[]) RETURNS void LANGUAGE sql AS $$
  WITH d AS (SELECT * FROM unnest(clinic_ids, statuses, signs) AS d(clinic_id, status, s)),
  k AS (
    SELECT d.clinic_id, k.dim, k.key, sum(CASE WHEN k.dim = 'total' THEN 0 ELSE d.s END) AS n
    FROM d CROSS JOIN LATERAL (VALUES ('total', ''), ('refund_request', d.status)) k(dim, key)
    WHERE EXISTS (SELECT 1 FROM clinics c WHERE c.id = d.clinic_id)
    GROUP BY 1, 2, 3
  )
  INSERT INTO clinic_rollups AS r (clinic_id, dim, key, refund_requests)
  SELECT clinic_id, dim, key, n FROM k ORDER BY clinic_id, dim <> 'total', dim, key
  ON CONFLICT (clinic_id, dim, key) DO UPDATE SET refund_requests = r.refund_requests + excluded.refund_requests
$$;
--> statement-breakpoint
CREATE FUNCTION rollups_on_orders() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN PERFORM refresh_order_rollups(ARRAY(SELECT id FROM new_rows));
  ELSIF TG_OP = 'UPDATE' THEN PERFORM refresh_order_rollups(ARRAY(SELECT id FROM new_rows UNION SELECT id FROM old_rows));
  ELSE PERFORM refresh_order_rollups(ARRAY(SELECT id FROM old_rows));
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- refunds and payments: their orders' figures.
CREATE FUNCTION rollups_on_order_parts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN PERFORM refresh_order_rollups(ARRAY(SELECT DISTINCT order_id FROM new_rows));
  ELSIF TG_OP = 'UPDATE' THEN PERFORM refresh_order_rollups(ARRAY(SELECT order_id FROM new_rows UNION SELECT order_id FROM old_rows));
  ELSE PERFORM refresh_order_rollups(ARRAY(SELECT DISTINCT order_id FROM old_rows));
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION rollups_on_refund_requests() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE c uuid[] := '{}'; st text[] := '{}'; sg int[] := '{}';
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    SELECT c || coalesce(array_agg(clinic_id), '{}'), st || coalesce(array_agg(status), '{}'), sg || coalesce(array_agg(1), '{}')
    INTO c, st, sg FROM new_rows;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    SELECT c || coalesce(array_agg(clinic_id), '{}'), st || coalesce(array_agg(status), '{}'), sg || coalesce(array_agg(-1), '{}')
    INTO c, st, sg FROM old_rows;
  END IF;
  IF cardinality(c) > 0 THEN PERFORM add_refund_request_rollups(c, st, sg); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION rollups_on_patients() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN PERFORM refresh_patient_rollups(ARRAY(SELECT id FROM new_rows));
  ELSIF TG_OP = 'UPDATE' THEN PERFORM refresh_patient_rollups(ARRAY(SELECT id FROM new_rows UNION SELECT id FROM old_rows));
  ELSE PERFORM refresh_patient_rollups(ARRAY(SELECT id FROM old_rows));
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION rollups_on_enrollments() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN PERFORM refresh_patient_rollups(ARRAY(SELECT DISTINCT patient_id FROM new_rows));
  ELSIF TG_OP = 'UPDATE' THEN PERFORM refresh_patient_rollups(ARRAY(SELECT patient_id FROM new_rows UNION SELECT patient_id FROM old_rows));
  ELSE PERFORM refresh_patient_rollups(ARRAY(SELECT DISTINCT patient_id FROM old_rows));
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER orders_rollups_insert AFTER INSERT ON orders REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION rollups_on_orders();
--> statement-breakpoint
CREATE TRIGGER orders_rollups_update AFTER UPDATE ON orders REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION rollups_on_orders();
--> statement-breakpoint
CREATE TRIGGER orders_rollups_delete AFTER DELETE ON orders REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION rollups_on_orders();
--> statement-breakpoint
CREATE TRIGGER refunds_rollups_insert AFTER INSERT ON refunds REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION rollups_on_order_parts();
--> statement-breakpoint
CREATE TRIGGER refunds_rollups_update AFTER UPDATE ON refunds REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION rollups_on_order_parts();
--> statement-breakpoint
CREATE TRIGGER refunds_rollups_delete AFTER DELETE ON refunds REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION rollups_on_order_parts();
--> statement-breakpoint
CREATE TRIGGER payments_rollups_insert AFTER INSERT ON payments REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION rollups_on_order_parts();
--> statement-breakpoint
CREATE TRIGGER payments_rollups_update AFTER UPDATE ON payments REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION rollups_on_order_parts();
--> statement-breakpoint
CREATE TRIGGER payments_rollups_delete AFTER DELETE ON payments REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION rollups_on_order_parts();
--> statement-breakpoint
CREATE TRIGGER refund_requests_rollups_insert AFTER INSERT ON refund_requests REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION rollups_on_refund_requests();
--> statement-breakpoint
CREATE TRIGGER refund_requests_rollups_update AFTER UPDATE ON refund_requests REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION rollups_on_refund_requests();
--> statement-breakpoint
CREATE TRIGGER refund_requests_rollups_delete AFTER DELETE ON refund_requests REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION rollups_on_refund_requests();
--> statement-breakpoint
CREATE TRIGGER patients_rollups_insert AFTER INSERT ON patients REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION rollups_on_patients();
--> statement-breakpoint
CREATE TRIGGER patients_rollups_update AFTER UPDATE ON patients REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION rollups_on_patients();
--> statement-breakpoint
CREATE TRIGGER patients_rollups_delete AFTER DELETE ON patients REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION rollups_on_patients();
--> statement-breakpoint
CREATE TRIGGER enrollments_rollups_insert AFTER INSERT ON enrollments REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION rollups_on_enrollments();
--> statement-breakpoint
CREATE TRIGGER enrollments_rollups_update AFTER UPDATE ON enrollments REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION rollups_on_enrollments();
--> statement-breakpoint
CREATE TRIGGER enrollments_rollups_delete AFTER DELETE ON enrollments REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION rollups_on_enrollments();
--> statement-breakpoint
-- Rebuilds one clinic's rollups and facts from its rows (the backfill; bulk loads that skipped the
-- triggers; the consistency test's reference).
CREATE FUNCTION recount_clinic_rollups(clinic uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  -- Lock the clinic's total row first, as the triggers do, so a concurrent writer waits for the recount.
  INSERT INTO clinic_rollups (clinic_id, dim, key) VALUES (clinic, 'total', '') ON CONFLICT DO NOTHING;
  PERFORM 1 FROM clinic_rollups WHERE clinic_id = clinic AND dim = 'total' FOR UPDATE;
  DELETE FROM clinic_rollups WHERE clinic_id = clinic AND dim <> 'total';
  UPDATE clinic_rollups SET orders = 0, paid_orders = 0, gross_cents = 0, refunded_orders = 0, refunded_cents = 0,
    kept_brand_cents = 0, kept_pharmacy_cents = 0, kept_doctor_cents = 0, kept_processor_cents = 0, kept_platform_cents = 0,
    kept_tax_cents = 0, kept_shipping_cents = 0, in_progress_orders = 0, attention_orders = 0, refund_requests = 0,
    patients = 0, active_patients = 0
  WHERE clinic_id = clinic AND dim = 'total';
  DELETE FROM order_rollup_facts WHERE clinic_id = clinic;
  DELETE FROM patient_rollup_facts WHERE clinic_id = clinic;
  PERFORM refresh_order_rollups(ARRAY(SELECT id FROM orders WHERE clinic_id = clinic));
  PERFORM refresh_patient_rollups(ARRAY(SELECT id FROM patients WHERE clinic_id = clinic));
  PERFORM add_refund_request_rollups(array_agg(clinic_id), array_agg(status), array_agg(1))
    FROM refund_requests WHERE clinic_id = clinic;
END $$;
--> statement-breakpoint
-- The backfill: every clinic, counted from its rows.
SELECT recount_clinic_rollups(id) FROM clinics;
--> statement-breakpoint
-- Statistics for the new tables at once (the planner otherwise sorts the facts instead of reading the
-- needs-attention index in order until autovacuum gets to them).
ANALYZE clinic_rollups;
--> statement-breakpoint
ANALYZE order_rollup_facts;
--> statement-breakpoint
ANALYZE patient_rollup_facts;
