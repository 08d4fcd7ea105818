import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { requestLogs } from '../../drizzle/schema';
import { pruneRequestLogs, REQUEST_LOG_RETENTION_DAYS } from '../../src/platform/request-log';
import { useTestApp } from '../helpers/app';
import { makeTenant } from '../helpers/factories';

const t = useTestApp();

describe('request-log retention sweep', () => {
  it(`deletes logs older than ${REQUEST_LOG_RETENTION_DAYS} days and keeps newer ones`, async () => {
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
    await t.db.insert(requestLogs).values([entry(200), entry(91), entry(89), entry(0)]);
    expect(await pruneRequestLogs(t.db, new Date())).toBe(2);
    const left = await t.db.select({ requestId: requestLogs.requestId }).from(requestLogs).where(eq(requestLogs.clinicId, clinic.id));
    expect(left.map((r) => r.requestId).sort()).toEqual(['r0', 'r89']);
  });
});
