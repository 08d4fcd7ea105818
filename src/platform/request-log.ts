import { sql } from 'drizzle-orm';
import { apiKeys, requestLogs } from '../../drizzle/schema';
import type { Queryable } from './db/client';

export type RequestLogEntry = typeof requestLogs.$inferInsert;

/**
 * Writes the log row and the key's lastUsedAt in one statement. Runs after the response; a failure is
 * reported to the console and never reaches the caller. lastUsedAt moves at most once a minute, so a
 * busy key does not turn every request into a write on the same api_keys row.
 */
export async function logKeyRequest(db: Queryable, entry: RequestLogEntry): Promise<void> {
  try {
    await db.execute(sql`
      with logged as (
        insert into ${requestLogs} (api_key_id, clinic_id, request_id, method, route, status, duration_ms)
        values (${entry.apiKeyId}, ${entry.clinicId}, ${entry.requestId}, ${entry.method}, ${entry.route}, ${entry.status}, ${entry.durationMs})
      )
      update ${apiKeys} set last_used_at = now()
      where id = ${entry.apiKeyId} and (last_used_at is null or last_used_at < now() - interval '1 minute')`);
  } catch (error) {
    console.error(JSON.stringify({ level: 'error', msg: 'request log write failed', requestId: entry.requestId, error: String(error) }));
  }
}
