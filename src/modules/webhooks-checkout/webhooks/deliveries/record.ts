// Recording a batch of attempts (docs/webhooks.md, "Who sends"): the attempts, their deliveries and
// their endpoints' health in one statement, in one transaction with the alert of any endpoint the
// batch turned off.
import { sql } from 'drizzle-orm';
import type { Database, Queryable } from '../../../../platform/db/client';
import { rowsOf } from '../../../../platform/db/sql';
import type { MessageSender } from '../../../../platform/providers/messaging/types';
import { ENDPOINT_FAILURE_CUTOFF } from './claim';
import { alertEndpointDisabled } from './endpoint-disabled-alert';
import type { AttemptError } from './send-attempt';

/** One attempt made, as it is recorded. */
export interface AttemptRecord {
  attemptId: string;
  deliveryId: string;
  clinicId: string;
  endpointId: string;
  url: string;
  attemptNumber: number;
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
  errorKind: AttemptError | null;
  responseBody: string | null;
  /** The delivery's status after this attempt. */
  status: 'succeeded' | 'pending' | 'failed';
  nextAttemptAt: Date | null;
  /** Whether a failure counts toward the endpoint's consecutive failures (see SendResult). */
  countsAgainstEndpoint: boolean;
}

/**
 * Records attempts made at `now`, `records` in the order they finished. Per endpoint, the consecutive
 * failures become the counted failures after the batch's last success (or, with no success, the count
 * before plus the batch's counted failures); at the cut-off the endpoint is turned off and alerted,
 * once per turn-off (the failure budget lets no attempt be in flight past it). A failure that does not
 * count leaves the endpoint as it is. The leases end in the same transaction as the failures are
 * counted, so a claim never sees neither or both. Endpoints are locked in id order first when the
 * batch has several (one lock order with the claims, no deadlock between two recorders).
 */
export async function recordAttempts(db: Database, now: Date, records: AttemptRecord[], messaging: MessageSender): Promise<void> {
  if (records.length > 0) await db.transaction((tx) => recordWithin(tx, now, records, messaging));
}

/** recordAttempts inside a transaction the caller holds. */
export async function recordWithin(tx: Queryable, now: Date, records: AttemptRecord[], messaging: MessageSender): Promise<void> {
  if (records.length === 0) return;
  const at = now.toISOString();
  const input = JSON.stringify(
    records.map((r, seq) => ({
      seq,
      attempt_id: r.attemptId,
      delivery_id: r.deliveryId,
      clinic_id: r.clinicId,
      endpoint_id: r.endpointId,
      attempt_number: r.attemptNumber,
      response_status: r.responseStatus,
      duration_ms: r.durationMs,
      error: r.error,
      error_kind: r.errorKind,
      response_body: r.responseBody,
      status: r.status,
      next_attempt_at: r.nextAttemptAt?.toISOString() ?? null,
      succeeded: r.status === 'succeeded',
      counts: r.status === 'succeeded' || r.countsAgainstEndpoint,
    })),
  );
  const endpoints = [...new Set(records.map((r) => r.endpointId))].sort();
  if (endpoints.length > 1) {
    await tx.execute(sql`select id from webhook_endpoints where id = any(${`{${endpoints.join(',')}}`}::uuid[]) order by id for update`);
  }
  const turnedOff = await rowsOf<{ id: string; clinic_id: string; consecutive_failures: number }>(
    tx,
    sql`
    with input as (
      select * from jsonb_to_recordset(${input}::jsonb) as i(
        seq int, attempt_id uuid, delivery_id uuid, clinic_id uuid, endpoint_id uuid, attempt_number int,
        response_status int, duration_ms int, error text, error_kind text, response_body text, status text,
        next_attempt_at timestamptz, succeeded boolean, counts boolean)
    ),
    attempts as (
      insert into webhook_attempts (id, clinic_id, delivery_id, attempt_number, response_status, duration_ms, error, error_kind, response_body, created_at)
      select attempt_id, clinic_id, delivery_id, attempt_number, response_status, duration_ms, error, error_kind, response_body, ${at}::timestamptz
      from input
    ),
    deliveries as (
      update webhook_deliveries d set
        status = i.status, attempts = i.attempt_number, last_attempt_at = ${at}::timestamptz,
        last_response_status = i.response_status, last_error = i.error, next_attempt_at = i.next_attempt_at,
        claimed_until = null,
        succeeded_at = case when i.succeeded then ${at}::timestamptz else d.succeeded_at end
      from input i
      where d.id = i.delivery_id and d.clinic_id = i.clinic_id
    ),
    health as (
      select endpoint_id, clinic_id, bool_or(succeeded) as any_success,
        count(*) filter (where counts and not succeeded
          and seq > coalesce((select max(s.seq) from input s where s.endpoint_id = i.endpoint_id and s.succeeded), -1))::int as failures
      from input i
      where counts
      group by endpoint_id, clinic_id
    ),
    updated as (
      update webhook_endpoints e set
        consecutive_failures = case when h.any_success then h.failures else e.consecutive_failures + h.failures end,
        is_active = case when (case when h.any_success then h.failures else e.consecutive_failures + h.failures end) >= ${ENDPOINT_FAILURE_CUTOFF} then false else e.is_active end,
        disabled_at = case when (case when h.any_success then h.failures else e.consecutive_failures + h.failures end) >= ${ENDPOINT_FAILURE_CUTOFF} and e.is_active then ${at}::timestamptz else e.disabled_at end,
        last_triggered_at = ${at}::timestamptz,
        updated_at = ${at}::timestamptz
      from health h
      where e.id = h.endpoint_id and e.clinic_id = h.clinic_id
      returning e.id, e.clinic_id, e.consecutive_failures, e.is_active, e.disabled_at
    )
    select id, clinic_id, consecutive_failures from updated
    where not is_active and disabled_at = ${at}::timestamptz and consecutive_failures >= ${ENDPOINT_FAILURE_CUTOFF}`,
  );
  // This batch turned it off: its failure reached the cut-off on an endpoint that was on.
  for (const endpoint of turnedOff) {
    const last = records.filter((r) => r.endpointId === endpoint.id && r.status !== 'succeeded' && r.countsAgainstEndpoint).at(-1);
    await alertEndpointDisabled(tx, messaging, {
      clinicId: endpoint.clinic_id,
      endpointId: endpoint.id,
      url: last?.url ?? '',
      lastError: last?.error ?? 'failed',
      failures: endpoint.consecutive_failures,
      disabledAt: now,
    });
  }
}
