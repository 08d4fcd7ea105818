DROP INDEX "order_rollup_facts_clinic_id_created_at_idx";--> statement-breakpoint
ALTER TABLE "clinic_rollups" ADD COLUMN "slot" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "clinic_rollups" DROP CONSTRAINT "clinic_rollups_clinic_id_dim_key_pk";--> statement-breakpoint
ALTER TABLE "clinic_rollups" ADD CONSTRAINT "clinic_rollups_clinic_id_dim_key_slot_pk" PRIMARY KEY("clinic_id","dim","key","slot");--> statement-breakpoint
ALTER TABLE "clinic_rollups" ADD COLUMN "held_schedules" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "order_rollup_facts" ADD COLUMN "patient_id" uuid;--> statement-breakpoint
ALTER TABLE "order_rollup_facts" ADD COLUMN "refund_request_statuses" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
CREATE INDEX "order_rollup_facts_clinic_id_created_at_idx" ON "order_rollup_facts" USING btree ("clinic_id","created_at","patient_id");--> statement-breakpoint
-- Hand-written from here (docs/orders.md, "Rollups"): counter slots, the summary's groups per UTC day,
-- the refund requests of each day's orders, distinct ordering patients from the facts, held titration
-- schedules; every function of 0012 that writes clinic_rollups is replaced to write its slot.

-- The slot this transaction writes for a clinic: the first of the clinic's `total` rows that no other
-- transaction holds, locked until commit (FOR UPDATE SKIP LOCKED never waits). A transaction that holds
-- a slot always finds one (its own), so only a transaction holding none can wait, and only here: on the
-- advisory lock (while a recount runs), or on a slot when all 8 are held. A slot's other rows are only
-- ever written by the holder of its `total` row, so writers never queue on them. An uncontended clinic
-- keeps slot 0 only.
CREATE FUNCTION rollup_slot(clinic uuid) RETURNS smallint LANGUAGE plpgsql AS $$
DECLARE s smallint; n int;
BEGIN
  LOOP
    SELECT r.slot INTO s FROM clinic_rollups r WHERE r.clinic_id = clinic AND r.dim = 'total' AND r.key = ''
      ORDER BY r.slot LIMIT 1 FOR UPDATE SKIP LOCKED;
    IF FOUND THEN RETURN s; END IF;
    -- None free: add a slot, unless a recount (which holds this lock) is rebuilding the clinic.
    PERFORM pg_advisory_xact_lock_shared(hashtextextended('rollup_slots:' || clinic::text, 0));
    SELECT count(*) INTO n FROM clinic_rollups r WHERE r.clinic_id = clinic AND r.dim = 'total' AND r.key = '';
    IF n >= 8 THEN
      SELECT r.slot INTO s FROM clinic_rollups r WHERE r.clinic_id = clinic AND r.dim = 'total' AND r.key = ''
        ORDER BY random() LIMIT 1 FOR UPDATE;
      IF FOUND THEN RETURN s; END IF;
    ELSE
      INSERT INTO clinic_rollups (clinic_id, dim, key, slot) VALUES (clinic, 'total', '', n) ON CONFLICT DO NOTHING;
      IF FOUND THEN RETURN n; END IF;
    END IF;
  END LOOP;
END $$;
--> statement-breakpoint
-- The slot of each existing clinic among the given ones (clinic id order; a deleted clinic has none).
CREATE FUNCTION rollup_slots(clinic_ids uuid[], OUT clinic_id uuid, OUT slot smallint) RETURNS SETOF record LANGUAGE plpgsql AS $$
DECLARE c uuid;
BEGIN
  FOR c IN SELECT DISTINCT x.id FROM unnest(clinic_ids) x(id) WHERE EXISTS (SELECT 1 FROM clinics k WHERE k.id = x.id) ORDER BY 1 LOOP
    clinic_id := c;
    slot := rollup_slot(c);
    RETURN NEXT;
  END LOOP;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION order_rollup_current(ids uuid[]) RETURNS SETOF order_rollup_facts LANGUAGE sql STABLE AS $$
  SELECT o.id, o.clinic_id, o.created_at, o.status, coalesce(o.program_id::text, ''), coalesce(upper(o.shipping_state), ''),
    o.paid_at IS NOT NULL, o.total_cents, r.order_id IS NOT NULL, coalesce(r.amount_cents, 0),
    o.brand_amount_cents, coalesce((o.fee_breakdown->>'pharmacyCost')::bigint, 0), coalesce((o.fee_breakdown->>'doctorFee')::bigint, 0),
    coalesce((o.fee_breakdown->>'processorFee')::bigint, 0), coalesce((o.fee_breakdown->>'platformFee')::bigint, 0),
    o.tax_cents, o.shipping_cents,
    o.status IN ('paid', 'awaiting_lab_results', 'awaiting_doctor_review', 'doctor_approved', 'sent_to_pharmacy', 'shipped'),
    CASE WHEN lp.status = 'failed' AND o.status NOT IN ('cancelled', 'refunded') THEN coalesce(lp.failed_at, lp.created_at) END,
    CASE WHEN lp.status = 'failed' AND o.status NOT IN ('cancelled', 'refunded') THEN lp.id END,
    o.patient_id,
    ARRAY(SELECT rr.status FROM refund_requests rr WHERE rr.order_id = o.id AND rr.clinic_id = o.clinic_id ORDER BY rr.status)
  FROM orders o
  LEFT JOIN refunds r ON r.order_id = o.id AND r.clinic_id = o.clinic_id AND r.status = 'succeeded'
  LEFT JOIN LATERAL (
    SELECT p.id, p.status, p.failed_at, p.created_at FROM payments p
    WHERE p.clinic_id = o.clinic_id AND p.order_id = o.id ORDER BY p.created_at DESC, p.id DESC LIMIT 1
  ) lp ON true
  WHERE o.id = ANY (ids)
$$;
--> statement-breakpoint
-- As in 0012, plus the per-day groups and the refund requests of each day's orders, into this
-- transaction's slot of each clinic.
CREATE OR REPLACE FUNCTION refresh_order_rollups(ids uuid[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE cs uuid[]; ss smallint[];
BEGIN
  IF ids IS NULL OR cardinality(ids) = 0 THEN RETURN; END IF;
  SELECT array_agg(x.clinic_id), array_agg(x.slot) INTO cs, ss FROM rollup_slots(ARRAY(
    SELECT o.clinic_id FROM orders o WHERE o.id = ANY (ids) UNION SELECT f.clinic_id FROM order_rollup_facts f WHERE f.order_id = ANY (ids)
  )) x;
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
      sum(d.s) FILTER (WHERE d.attention_at IS NOT NULL) AS attention_orders,
      0::bigint AS refund_requests
    FROM d CROSS JOIN LATERAL (SELECT to_char(d.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day) t
    CROSS JOIN LATERAL (VALUES
      ('total', ''), ('status', d.status), ('program', d.program_key), ('state', d.state_key),
      ('day', t.day), ('hour', to_char(d.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24')),
      ('day_status', t.day || '|' || d.status), ('day_program', t.day || '|' || d.program_key), ('day_state', t.day || '|' || d.state_key)
    ) k(dim, key)
    GROUP BY 1, 2, 3
    UNION ALL
    SELECT d.clinic_id, 'day_refund_request', to_char(d.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') || '|' || rr.status,
      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, sum(d.s)
    FROM d CROSS JOIN LATERAL unnest(d.refund_request_statuses) rr(status)
    GROUP BY 1, 2, 3
  )
  INSERT INTO clinic_rollups AS r (clinic_id, dim, key, slot, orders, paid_orders, gross_cents, refunded_orders, refunded_cents,
    kept_brand_cents, kept_pharmacy_cents, kept_doctor_cents, kept_processor_cents, kept_platform_cents, kept_tax_cents,
    kept_shipping_cents, in_progress_orders, attention_orders, refund_requests)
  SELECT k.clinic_id, k.dim, k.key, sl.slot, k.orders, coalesce(k.paid_orders, 0), coalesce(k.gross_cents, 0), coalesce(k.refunded_orders, 0),
    coalesce(k.refunded_cents, 0), coalesce(k.kept_brand_cents, 0), coalesce(k.kept_pharmacy_cents, 0), coalesce(k.kept_doctor_cents, 0),
    coalesce(k.kept_processor_cents, 0), coalesce(k.kept_platform_cents, 0), coalesce(k.kept_tax_cents, 0),
    coalesce(k.kept_shipping_cents, 0), coalesce(k.in_progress_orders, 0), coalesce(k.attention_orders, 0), k.refund_requests
  FROM k JOIN unnest(cs, ss) sl(clinic_id, slot) ON sl.clinic_id = k.clinic_id
  ORDER BY k.clinic_id, k.dim <> 'total', k.dim, k.key
  ON CONFLICT (clinic_id, dim, key, slot) DO UPDATE SET
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
    attention_orders = r.attention_orders + excluded.attention_orders,
    refund_requests = r.refund_requests + excluded.refund_requests;
  DELETE FROM order_rollup_facts WHERE order_id = ANY (ids);
  INSERT INTO order_rollup_facts SELECT * FROM order_rollup_current(ids);
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION refresh_patient_rollups(ids uuid[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE cs uuid[]; ss smallint[];
BEGIN
  IF ids IS NULL OR cardinality(ids) = 0 THEN RETURN; END IF;
  SELECT array_agg(x.clinic_id), array_agg(x.slot) INTO cs, ss FROM rollup_slots(ARRAY(
    SELECT p.clinic_id FROM patients p WHERE p.id = ANY (ids) UNION SELECT f.clinic_id FROM patient_rollup_facts f WHERE f.patient_id = ANY (ids)
  )) x;
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
    GROUP BY 1, 2, 3
  )
  INSERT INTO clinic_rollups AS r (clinic_id, dim, key, slot, patients, active_patients)
  SELECT k.clinic_id, k.dim, k.key, sl.slot, k.patients, k.active_patients
  FROM k JOIN unnest(cs, ss) sl(clinic_id, slot) ON sl.clinic_id = k.clinic_id
  ORDER BY k.clinic_id, k.dim <> 'total', k.dim, k.key
  ON CONFLICT (clinic_id, dim, key, slot) DO UPDATE SET
    patients = r.patients + excluded.patients, active_patients = r.active_patients + excluded.active_patients;
  DELETE FROM patient_rollup_facts WHERE patient_id = ANY (ids);
  INSERT INTO patient_rollup_facts (patient_id, clinic_id, created_at, active)
  SELECT p.id, p.clinic_id, p.created_at,
    EXISTS (SELECT 1 FROM enrollments e WHERE e.clinic_id = p.clinic_id AND e.patient_id = p.id AND e.status = 'active')
  FROM patients p WHERE p.id = ANY (ids);
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION add_refund_request_rollups(clinic_ids uuid[], statuses text[], signs int[]) RETURNS void LANGUAGE sql AS $$
  WITH d AS (SELECT * FROM unnest(clinic_ids, statuses, signs) AS d(clinic_id, status, s)),
  k AS (
    SELECT d.clinic_id, d.status AS key, sum(d.s) AS n FROM d GROUP BY 1, 2
  )
  INSERT INTO clinic_rollups AS r (clinic_id, dim, key, slot, refund_requests)
  SELECT k.clinic_id, 'refund_request', k.key, sl.slot, k.n
  FROM k JOIN rollup_slots(clinic_ids) sl ON sl.clinic_id = k.clinic_id
  ORDER BY k.clinic_id, k.key
  ON CONFLICT (clinic_id, dim, key, slot) DO UPDATE SET refund_requests = r.refund_requests + excluded.refund_requests
$$;
--> statement-breakpoint
-- Refund requests: the status counts, and their orders' facts (the refund requests of each day's orders).
CREATE OR REPLACE FUNCTION rollups_on_refund_requests() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE c uuid[] := '{}'; st text[] := '{}'; sg int[] := '{}'; o uuid[] := '{}';
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    SELECT c || coalesce(array_agg(clinic_id), '{}'), st || coalesce(array_agg(status), '{}'), sg || coalesce(array_agg(1), '{}'),
      o || coalesce(array_agg(order_id), '{}')
    INTO c, st, sg, o FROM new_rows;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    SELECT c || coalesce(array_agg(clinic_id), '{}'), st || coalesce(array_agg(status), '{}'), sg || coalesce(array_agg(-1), '{}'),
      o || coalesce(array_agg(order_id), '{}')
    INTO c, st, sg, o FROM old_rows;
  END IF;
  IF cardinality(c) > 0 THEN
    PERFORM add_refund_request_rollups(c, st, sg);
    PERFORM refresh_order_rollups(ARRAY(SELECT DISTINCT x FROM unnest(o) x));
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- Held titration schedules: +1 for each new row held, -1 for each old row held (only when that moves a count).
CREATE FUNCTION add_held_rollups(clinic_ids uuid[], signs int[]) RETURNS void LANGUAGE sql AS $$
  WITH k AS (
    SELECT d.clinic_id, sum(d.s) AS n FROM unnest(clinic_ids, signs) AS d(clinic_id, s) GROUP BY 1 HAVING sum(d.s) <> 0
  )
  INSERT INTO clinic_rollups AS r (clinic_id, dim, key, slot, held_schedules)
  SELECT k.clinic_id, 'total', '', sl.slot, k.n
  FROM k JOIN rollup_slots(ARRAY(SELECT clinic_id FROM k)) sl ON sl.clinic_id = k.clinic_id
  ORDER BY k.clinic_id
  ON CONFLICT (clinic_id, dim, key, slot) DO UPDATE SET held_schedules = r.held_schedules + excluded.held_schedules
$$;
--> statement-breakpoint
CREATE FUNCTION rollups_on_titration_schedules() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE c uuid[] := '{}'; sg int[] := '{}';
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    SELECT c || coalesce(array_agg(clinic_id), '{}'), sg || coalesce(array_agg(1), '{}') INTO c, sg FROM new_rows WHERE status = 'held';
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    SELECT c || coalesce(array_agg(clinic_id), '{}'), sg || coalesce(array_agg(-1), '{}') INTO c, sg FROM old_rows WHERE status = 'held';
  END IF;
  IF cardinality(c) > 0 THEN PERFORM add_held_rollups(c, sg); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER titration_schedules_rollups_insert AFTER INSERT ON titration_schedules REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION rollups_on_titration_schedules();
--> statement-breakpoint
CREATE TRIGGER titration_schedules_rollups_update AFTER UPDATE ON titration_schedules REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION rollups_on_titration_schedules();
--> statement-breakpoint
CREATE TRIGGER titration_schedules_rollups_delete AFTER DELETE ON titration_schedules REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION rollups_on_titration_schedules();
--> statement-breakpoint
-- Rebuilds one clinic: holds the advisory lock (no slot is added meanwhile) and every slot, so writers
-- of the clinic wait for it; then counts everything into one slot.
CREATE OR REPLACE FUNCTION recount_clinic_rollups(clinic uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('rollup_slots:' || clinic::text, 0));
  INSERT INTO clinic_rollups (clinic_id, dim, key, slot) VALUES (clinic, 'total', '', 0) ON CONFLICT DO NOTHING;
  PERFORM 1 FROM clinic_rollups WHERE clinic_id = clinic AND dim = 'total' AND key = '' ORDER BY slot FOR UPDATE;
  DELETE FROM clinic_rollups WHERE clinic_id = clinic AND dim <> 'total';
  UPDATE clinic_rollups SET orders = 0, paid_orders = 0, gross_cents = 0, refunded_orders = 0, refunded_cents = 0,
    kept_brand_cents = 0, kept_pharmacy_cents = 0, kept_doctor_cents = 0, kept_processor_cents = 0, kept_platform_cents = 0,
    kept_tax_cents = 0, kept_shipping_cents = 0, in_progress_orders = 0, attention_orders = 0, refund_requests = 0,
    patients = 0, active_patients = 0, held_schedules = 0
  WHERE clinic_id = clinic AND dim = 'total';
  DELETE FROM order_rollup_facts WHERE clinic_id = clinic;
  DELETE FROM patient_rollup_facts WHERE clinic_id = clinic;
  PERFORM refresh_order_rollups(ARRAY(SELECT id FROM orders WHERE clinic_id = clinic));
  PERFORM refresh_patient_rollups(ARRAY(SELECT id FROM patients WHERE clinic_id = clinic));
  PERFORM add_refund_request_rollups(array_agg(clinic_id), array_agg(status), array_agg(1))
    FROM refund_requests WHERE clinic_id = clinic HAVING count(*) > 0;
  PERFORM add_held_rollups(array_agg(clinic_id), array_agg(1))
    FROM titration_schedules WHERE clinic_id = clinic AND status = 'held' HAVING count(*) > 0;
END $$;
--> statement-breakpoint
-- The backfill: every clinic, counted from its rows with the new groups.
SELECT recount_clinic_rollups(id) FROM clinics;
--> statement-breakpoint
ANALYZE clinic_rollups;
--> statement-breakpoint
ANALYZE order_rollup_facts;
