-- Issue 30, item 5: request_logs and audit_events partitioned by month on created_at (PostgreSQL
-- declarative partitioning), converted in place with their rows (docs/request-logs.md, docs/audit-log.md).
-- Per table: the old table is renamed, the partitioned parent created, monthly partitions made for the
-- rows' months and three ahead (plus a DEFAULT partition, the safety net), the rows copied with their
-- ids (and, for audit_events, seq/prev_hash/hash exactly: the chain trigger is created after the copy),
-- then indexes, foreign keys and triggers made on the parent, and the old table dropped.

-- Partition maintenance (used here and by the cron sweep, src/platform/partitions.ts) ------------------

-- Creates the partition of `parent` for the UTC month holding `month` (named <parent>_YYYY_MM) unless it
-- exists; answers whether it made it. The partition is made apart and then ATTACHed, which locks the
-- parent only in SHARE UPDATE EXCLUSIVE mode (reads and writes go on; CREATE TABLE ... PARTITION OF
-- would take ACCESS EXCLUSIVE). Rows of that month waiting in the DEFAULT partition (written while the
-- partition was missing) are moved into it first, ids and chain columns unchanged. For audit_events it
-- adds what a parent cannot hold for its partitions: the unique (clinic_id, seq) index, which refuses a
-- fork of a clinic's chain within the month, and the TRUNCATE trigger (statement triggers are not
-- inherited).
CREATE FUNCTION create_month_partition(parent regclass, month timestamptz) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  base text := (SELECT relname FROM pg_class WHERE oid = parent);
  first_day timestamp := date_trunc('month', month AT TIME ZONE 'UTC');
  part text := base || '_' || to_char(first_day, 'YYYY_MM');
  lo timestamptz := first_day AT TIME ZONE 'UTC';
  hi timestamptz := (first_day + interval '1 month') AT TIME ZONE 'UTC';
  fallback regclass := to_regclass(base || '_default');
  waiting boolean := false;
BEGIN
  IF to_regclass(part) IS NOT NULL THEN
    RETURN false;
  END IF;
  -- Two sweeps at once: the second waits here, then finds the partition made.
  PERFORM pg_advisory_xact_lock(hashtextextended('month_partition:' || base, 0));
  IF to_regclass(part) IS NOT NULL THEN
    RETURN false;
  END IF;
  EXECUTE format('CREATE TABLE %I (LIKE %s INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', part, parent);
  IF fallback IS NOT NULL THEN
    -- No row of the month may reach the DEFAULT partition between this look and the ATTACH (which would
    -- then fail): its inserts wait for this transaction (reads do not).
    EXECUTE format('LOCK TABLE %s IN SHARE ROW EXCLUSIVE MODE', fallback);
    EXECUTE format('SELECT EXISTS (SELECT 1 FROM %s WHERE created_at >= $1 AND created_at < $2)', fallback) INTO waiting USING lo, hi;
  END IF;
  IF waiting THEN
    -- The append-only trigger is off on the DEFAULT partition for this move alone (same transaction).
    IF base = 'audit_events' THEN
      EXECUTE format('ALTER TABLE %s DISABLE TRIGGER audit_events_no_change', fallback);
    END IF;
    EXECUTE format(
      'WITH moved AS (DELETE FROM %s WHERE created_at >= $1 AND created_at < $2 RETURNING *) INSERT INTO %I SELECT * FROM moved',
      fallback, part) USING lo, hi;
    IF base = 'audit_events' THEN
      EXECUTE format('ALTER TABLE %s ENABLE TRIGGER audit_events_no_change', fallback);
    END IF;
  END IF;
  IF base = 'audit_events' THEN
    EXECUTE format('CREATE UNIQUE INDEX %I ON %I (clinic_id, seq)', part || '_clinic_id_seq_key', part);
    EXECUTE format('CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only()', part);
  END IF;
  EXECUTE format('ALTER TABLE %s ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', parent, part, lo, hi);
  RETURN true;
END
$$;--> statement-breakpoint
-- The partitions from the month of `now` to `months_ahead` months after it, and those of any month with
-- rows waiting in the DEFAULT partition (the sweep stopped for a while): answers how many it made. Cheap
-- when they exist (a catalog look-up per month and a look at the empty DEFAULT partition), so the cron
-- sweep calls it every run. lock_timeout: a partition waits for no long query; the next run retries.
CREATE FUNCTION ensure_month_partitions(parent regclass, now timestamptz, months_ahead int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  fallback regclass := to_regclass((SELECT relname FROM pg_class WHERE oid = parent) || '_default');
  month timestamptz;
  waiting timestamptz[];
  made int := 0;
BEGIN
  PERFORM set_config('lock_timeout', '5s', true);
  FOR month IN SELECT generate_series(0, months_ahead) * interval '1 month' + now LOOP
    IF create_month_partition(parent, month) THEN
      made := made + 1;
    END IF;
  END LOOP;
  IF fallback IS NOT NULL THEN
    -- Read whole before the loop: a move alters the DEFAULT partition, which an open cursor would forbid.
    EXECUTE format('SELECT array(SELECT DISTINCT date_trunc(''month'', created_at AT TIME ZONE ''UTC'') AT TIME ZONE ''UTC'' FROM %s)', fallback)
      INTO waiting;
    FOREACH month IN ARRAY waiting LOOP
      IF create_month_partition(parent, month) THEN
        made := made + 1;
      END IF;
    END LOOP;
  END IF;
  RETURN made;
END
$$;--> statement-breakpoint
-- The retention: drops every month partition of `parent` whose whole month is before `cutoff` (its upper
-- bound <= cutoff), a constant-time DROP TABLE each, never a DELETE; answers the names dropped. Before
-- an audit_events partition goes, each clinic's last row in it (highest seq) is recorded in
-- audit_chain_anchors, where verifyAuditChain then starts that clinic's chain.
CREATE FUNCTION drop_month_partitions(parent regclass, cutoff timestamptz) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  part record;
BEGIN
  PERFORM set_config('lock_timeout', '5s', true);
  FOR part IN
    SELECT c.oid::regclass AS name, c.relname,
      substring(pg_get_expr(c.relpartbound, c.oid) FROM $re$TO \('([^']+)'\)$re$)::timestamptz AS upper_bound
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = parent AND pg_get_expr(c.relpartbound, c.oid) <> 'DEFAULT'
    ORDER BY 3
  LOOP
    CONTINUE WHEN part.upper_bound > cutoff;
    IF parent = 'audit_events'::regclass THEN
      EXECUTE format(
        $q$INSERT INTO audit_chain_anchors (clinic_id, seq, hash)
           SELECT DISTINCT ON (clinic_id) clinic_id, seq, hash FROM %s ORDER BY clinic_id, seq DESC
           ON CONFLICT (clinic_id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, dropped_at = now()
           WHERE excluded.seq > audit_chain_anchors.seq$q$, part.name);
    END IF;
    EXECUTE format('DROP TABLE %s', part.name);
    RETURN NEXT part.relname;
  END LOOP;
END
$$;--> statement-breakpoint

-- request_logs ----------------------------------------------------------------------------------------
ALTER TABLE "request_logs" RENAME TO "request_logs_unpartitioned";--> statement-breakpoint
ALTER TABLE "request_logs_unpartitioned" RENAME CONSTRAINT "request_logs_pkey" TO "request_logs_unpartitioned_pkey";--> statement-breakpoint
ALTER SEQUENCE "request_logs_id_seq" RENAME TO "request_logs_unpartitioned_id_seq";--> statement-breakpoint
DROP INDEX "request_logs_clinic_id_created_at_idx", "request_logs_clinic_id_request_id_idx", "request_logs_api_key_id_created_at_idx", "request_logs_created_at_idx";--> statement-breakpoint
CREATE TABLE "request_logs" (
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "request_logs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"api_key_id" uuid NOT NULL,
	"clinic_id" uuid NOT NULL,
	"request_id" text NOT NULL,
	"method" text NOT NULL,
	"route" text NOT NULL,
	"status" smallint NOT NULL,
	"duration_ms" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"path" text,
	"error_code" text,
	"idempotency_key" text,
	"idempotent_replayed" boolean DEFAULT false NOT NULL,
	"rate_limited" boolean DEFAULT false NOT NULL,
	"rate_limit_remaining" integer,
	"client_ip" text,
	"user_agent" text,
	CONSTRAINT "request_logs_pkey" PRIMARY KEY("id","created_at")
) PARTITION BY RANGE ("created_at");--> statement-breakpoint
CREATE TABLE "request_logs_default" PARTITION OF "request_logs" DEFAULT;--> statement-breakpoint
SELECT create_month_partition('request_logs', month)
FROM generate_series(
  date_trunc('month', least((SELECT min(created_at) FROM request_logs_unpartitioned), now()) AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
  now() + interval '3 months', interval '1 month') AS month;--> statement-breakpoint
INSERT INTO "request_logs" OVERRIDING SYSTEM VALUE
SELECT "id", "api_key_id", "clinic_id", "request_id", "method", "route", "status", "duration_ms", "created_at", "path", "error_code",
  "idempotency_key", "idempotent_replayed", "rate_limited", "rate_limit_remaining", "client_ip", "user_agent"
FROM "request_logs_unpartitioned";--> statement-breakpoint
SELECT setval(pg_get_serial_sequence('request_logs', 'id'), greatest((SELECT max(id) FROM request_logs_unpartitioned), 1), EXISTS (SELECT 1 FROM request_logs_unpartitioned));--> statement-breakpoint
DROP TABLE "request_logs_unpartitioned";--> statement-breakpoint
ALTER TABLE "request_logs" ADD CONSTRAINT "request_logs_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "request_logs" ADD CONSTRAINT "request_logs_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "request_logs_clinic_id_created_at_idx" ON "request_logs" USING btree ("clinic_id","created_at");--> statement-breakpoint
CREATE INDEX "request_logs_clinic_id_request_id_idx" ON "request_logs" USING btree ("clinic_id","request_id");--> statement-breakpoint
CREATE INDEX "request_logs_api_key_id_created_at_idx" ON "request_logs" USING btree ("api_key_id","created_at");--> statement-breakpoint

-- audit_events ----------------------------------------------------------------------------------------
-- The chain's functions name the table's row type: dropped with the old table, made anew below.
DROP TRIGGER "audit_events_chain" ON "audit_events";--> statement-breakpoint
DROP FUNCTION audit_event_content(audit_events);--> statement-breakpoint
ALTER TABLE "audit_events" RENAME TO "audit_events_unpartitioned";--> statement-breakpoint
ALTER TABLE "audit_events_unpartitioned" RENAME CONSTRAINT "audit_events_pkey" TO "audit_events_unpartitioned_pkey";--> statement-breakpoint
ALTER SEQUENCE "audit_events_id_seq" RENAME TO "audit_events_unpartitioned_id_seq";--> statement-breakpoint
DROP INDEX "audit_events_clinic_id_seq_idx", "audit_events_clinic_id_created_at_idx", "audit_events_clinic_id_target_idx", "audit_events_clinic_id_actor_id_idx";--> statement-breakpoint
CREATE TABLE "audit_events" (
	"id" bigint GENERATED ALWAYS AS IDENTITY (sequence name "audit_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"clinic_id" uuid NOT NULL,
	"seq" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"actor_kind" text NOT NULL,
	"actor_id" text NOT NULL,
	"actor_label" text,
	"ip" text,
	"user_agent" text,
	"request_id" text,
	"action" text NOT NULL,
	"route" text,
	"target_type" text NOT NULL,
	"target_id" text,
	"changes" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"prev_hash" text DEFAULT '' NOT NULL,
	"hash" text DEFAULT '' NOT NULL,
	CONSTRAINT "audit_events_pkey" PRIMARY KEY("id","created_at"),
	CONSTRAINT "audit_events_actor_kind_check" CHECK ("audit_events"."actor_kind" in ('key', 'user', 'system'))
) PARTITION BY RANGE ("created_at");--> statement-breakpoint
CREATE TABLE "audit_events_default" PARTITION OF "audit_events" DEFAULT;--> statement-breakpoint
CREATE UNIQUE INDEX "audit_events_default_clinic_id_seq_key" ON "audit_events_default" ("clinic_id", "seq");--> statement-breakpoint
CREATE TRIGGER "audit_events_no_truncate" BEFORE TRUNCATE ON "audit_events_default" FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only();--> statement-breakpoint
SELECT create_month_partition('audit_events', month)
FROM generate_series(
  date_trunc('month', least((SELECT min(created_at) FROM audit_events_unpartitioned), now()) AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
  now() + interval '3 months', interval '1 month') AS month;--> statement-breakpoint
-- Before the chain trigger exists: seq, prev_hash and hash are copied as they are.
INSERT INTO "audit_events" OVERRIDING SYSTEM VALUE
SELECT "id", "clinic_id", "seq", "created_at", "actor_kind", "actor_id", "actor_label", "ip", "user_agent", "request_id", "action",
  "route", "target_type", "target_id", "changes", "prev_hash", "hash"
FROM "audit_events_unpartitioned";--> statement-breakpoint
SELECT setval(pg_get_serial_sequence('audit_events', 'id'), greatest((SELECT max(id) FROM audit_events_unpartitioned), 1), EXISTS (SELECT 1 FROM audit_events_unpartitioned));--> statement-breakpoint
DROP TABLE "audit_events_unpartitioned";--> statement-breakpoint
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_events_clinic_id_created_at_idx" ON "audit_events" USING btree ("clinic_id","created_at");--> statement-breakpoint
CREATE INDEX "audit_events_clinic_id_target_idx" ON "audit_events" USING btree ("clinic_id","target_type","target_id","created_at");--> statement-breakpoint
CREATE INDEX "audit_events_clinic_id_actor_id_idx" ON "audit_events" USING btree ("clinic_id","actor_id","created_at");--> statement-breakpoint
-- The canonical content a row's hash covers, unchanged (migration 0020): every column but id, prev_hash
-- and hash, as one JSON array, the time in UTC to the microsecond. It now takes the columns: the insert
-- trigger runs on a partition, whose NEW is that partition's row type, not audit_events'.
CREATE FUNCTION audit_event_content(
  clinic_id uuid, seq bigint, created_at timestamptz, actor_kind text, actor_id text, actor_label text, ip text, user_agent text,
  request_id text, action text, route text, target_type text, target_id text, changes jsonb
) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_array(
    clinic_id::text, seq, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
    actor_kind, actor_id, actor_label, ip, user_agent, request_id, action, route, target_type, target_id, changes
  )::text
$$;--> statement-breakpoint
-- The same for a row read through the parent (verifyAuditChain: audit_event_content(e)).
CREATE FUNCTION audit_event_content(e audit_events) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT audit_event_content(e.clinic_id, e.seq, e.created_at, e.actor_kind, e.actor_id, e.actor_label, e.ip, e.user_agent,
    e.request_id, e.action, e.route, e.target_type, e.target_id, e.changes)
$$;--> statement-breakpoint
-- Each clinic's chain head (seq and hash of its last row), so the trigger reads one row by primary key
-- instead of searching every month partition's (clinic_id, seq) index for the highest seq (one index
-- descent per partition: at six years of months, 77, which doubled the insert's CPU in the benchmark).
-- It also makes the removal of a clinic's newest rows behind the trail visible: the next row chains to
-- the removed row's hash, where before it would have taken the removed seq over.
CREATE TABLE "audit_chain_heads" (
	"clinic_id" uuid PRIMARY KEY NOT NULL,
	"seq" bigint NOT NULL,
	"hash" text NOT NULL
);--> statement-breakpoint
ALTER TABLE "audit_chain_heads" ADD CONSTRAINT "audit_chain_heads_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
INSERT INTO "audit_chain_heads" ("clinic_id", "seq", "hash")
SELECT DISTINCT ON ("clinic_id") "clinic_id", "seq", "hash" FROM "audit_events" ORDER BY "clinic_id", "seq" DESC;--> statement-breakpoint
-- The chain, as in 0020 (the clinic's advisory lock, then its last row), the last row read from the head
-- and the head moved to the new row in the same transaction.
CREATE OR REPLACE FUNCTION audit_events_chain() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  last_seq bigint;
  last_hash text;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('audit_events:' || NEW.clinic_id::text, 0));
  SELECT seq, hash INTO last_seq, last_hash FROM audit_chain_heads WHERE clinic_id = NEW.clinic_id;
  NEW.seq := coalesce(last_seq, 0) + 1;
  NEW.prev_hash := coalesce(last_hash, '');
  NEW.hash := encode(sha256(convert_to(NEW.prev_hash || audit_event_content(NEW.clinic_id, NEW.seq, NEW.created_at, NEW.actor_kind,
    NEW.actor_id, NEW.actor_label, NEW.ip, NEW.user_agent, NEW.request_id, NEW.action, NEW.route, NEW.target_type, NEW.target_id,
    NEW.changes), 'UTF8')), 'hex');
  INSERT INTO audit_chain_heads (clinic_id, seq, hash) VALUES (NEW.clinic_id, NEW.seq, NEW.hash)
    ON CONFLICT (clinic_id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash;
  RETURN NEW;
END
$$;--> statement-breakpoint
CREATE TRIGGER audit_events_chain BEFORE INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION audit_events_chain();--> statement-breakpoint
-- Append-only: the row triggers on the parent are cloned onto every partition, present and future; the
-- TRUNCATE trigger is not, so create_month_partition adds it to each partition, and it stays here for
-- TRUNCATE of the parent.
CREATE TRIGGER audit_events_no_change BEFORE UPDATE OR DELETE ON audit_events FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();--> statement-breakpoint
CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only();--> statement-breakpoint

CREATE TABLE "audit_chain_anchors" (
	"clinic_id" uuid PRIMARY KEY NOT NULL,
	"seq" bigint NOT NULL,
	"hash" text NOT NULL,
	"dropped_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
ALTER TABLE "audit_chain_anchors" ADD CONSTRAINT "audit_chain_anchors_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE no action ON UPDATE no action;
