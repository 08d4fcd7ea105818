import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { requestLogs } from '../../drizzle/schema';
import { rowsOf } from '../../src/platform/db/sql';
import { REQUEST_LOG_RETENTION_DAYS } from '../../src/platform/request-log';
import { SWEEPS } from '../../src/scheduled';
import { useTestApp } from '../helpers/app';
import { makeTenant } from '../helpers/factories';

const t = useTestApp();

describe('request-log retention in the cron sweeps', () => {
  it(`drops the months of logs older than ${REQUEST_LOG_RETENTION_DAYS} days and keeps newer ones`, async () => {
    const { clinic, keyRow } = await makeTenant(t.db);
    const day = 86_400_000;
    const entry = (ageDays: number) => ({
      apiKeyId: keyRow.id,
      clinicId: clinic.id,
      requestId: `r${ageDays}`,
      method: 'GET',
      route: '/api/v1/me',
      status: 200,
      durationMs: 1,
      createdAt: new Date(Date.now() - ageDays * day),
    });
    await t.db.insert(requestLogs).values([entry(200), entry(130), entry(89), entry(0)]);
    await SWEEPS.partitionMaintenance!(t.db, new Date(), {} as never);
    const left = await rowsOf<{ request_id: string }>(
      t.db,
      sql`select request_id from request_logs where clinic_id = ${clinic.id}::uuid order by created_at`,
    );
    expect(left.map((r) => r.request_id)).toEqual(['r89', 'r0']);
  });
});
