CREATE TABLE "audit_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "audit_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
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
	CONSTRAINT "audit_events_actor_kind_check" CHECK ("audit_events"."actor_kind" in ('key', 'user', 'system'))
);
--> statement-breakpoint
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_clinic_id_clinics_id_fk" FOREIGN KEY ("clinic_id") REFERENCES "public"."clinics"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "audit_events_clinic_id_seq_idx" ON "audit_events" USING btree ("clinic_id","seq");--> statement-breakpoint
CREATE INDEX "audit_events_clinic_id_created_at_idx" ON "audit_events" USING btree ("clinic_id","created_at");--> statement-breakpoint
CREATE INDEX "audit_events_clinic_id_target_idx" ON "audit_events" USING btree ("clinic_id","target_type","target_id","created_at");--> statement-breakpoint
CREATE INDEX "audit_events_clinic_id_actor_id_idx" ON "audit_events" USING btree ("clinic_id","actor_id","created_at");--> statement-breakpoint
-- The canonical content a row's hash covers (docs/audit-log.md): every column but id, prev_hash and hash,
-- as one JSON array (jsonb's text form is deterministic), the time in UTC to the microsecond.
CREATE FUNCTION audit_event_content(e audit_events) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_array(
    e.clinic_id::text, e.seq, to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
    e.actor_kind, e.actor_id, e.actor_label, e.ip, e.user_agent, e.request_id, e.action, e.route,
    e.target_type, e.target_id, e.changes
  )::text
$$;--> statement-breakpoint
-- The chain: under a per-clinic advisory lock (held to the end of the inserting transaction, so two
-- writers of one clinic append one after the other), the row takes the next seq and the last row's hash.
-- A trigger function is VOLATILE: its SELECT takes a fresh snapshot after the lock is granted (READ
-- COMMITTED), so it sees the row a writer that held the lock before it committed.
CREATE FUNCTION audit_events_chain() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  last_seq bigint;
  last_hash text;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('audit_events:' || NEW.clinic_id::text, 0));
  SELECT seq, hash INTO last_seq, last_hash FROM audit_events WHERE clinic_id = NEW.clinic_id ORDER BY seq DESC LIMIT 1;
  NEW.seq := coalesce(last_seq, 0) + 1;
  NEW.prev_hash := coalesce(last_hash, '');
  NEW.hash := encode(sha256(convert_to(NEW.prev_hash || audit_event_content(NEW), 'UTF8')), 'hex');
  RETURN NEW;
END
$$;--> statement-breakpoint
CREATE TRIGGER audit_events_chain BEFORE INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION audit_events_chain();--> statement-breakpoint
-- Append-only, for every role (the application's included): no UPDATE, DELETE or TRUNCATE.
CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only: % is not allowed', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;--> statement-breakpoint
CREATE TRIGGER audit_events_no_change BEFORE UPDATE OR DELETE ON audit_events FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();--> statement-breakpoint
CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only();
