-- Issue 37, item 3 (docs/request-logs.md, "Request ids"): the request id is always the API's own; a
-- client's X-Request-Id (1-128 visible ASCII characters) is kept as data in client_request_id, and
-- GET /request-logs/{requestId} finds a call by either. Rows written before keep the client's id, where
-- it was one, in request_id (it was the request's id then), and client_request_id null.
-- A nullable column is a catalogue change. The index is partial (most requests send no id of their own)
-- and built on each month partition by a plain CREATE INDEX on the parent, which blocks the request log's
-- batched inserts while it reads every partition; a large
-- deployment may build it per partition with CREATE INDEX CONCURRENTLY first and attach.
ALTER TABLE "request_logs" ADD COLUMN "client_request_id" text;--> statement-breakpoint
CREATE INDEX "request_logs_clinic_id_client_request_id_idx" ON "request_logs" USING btree ("clinic_id","client_request_id") WHERE client_request_id is not null;
