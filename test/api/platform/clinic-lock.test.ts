// The per-clinic lock (src/platform/db/clinic-lock.ts) excludes its other holders, and nothing else:
// writes that only reference the clinic go on while it is held. Under FOR UPDATE they waited for the
// holder's commit, and a key roll (which holds the lock, then updates the key) deadlocked with the
// request-log batch of that key (which updates the key's last_used_at, then checks its clinic foreign
// key): the roll answered 500 in a full `npm test` run. This replays that interleaving step by step.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { apiKeys, requestLogs } from '../../../drizzle/schema';
import { lockClinic } from '../../../src/platform/db/clinic-lock';
import { RequestLogWriter } from '../../../src/platform/request-log';
import { useTestApp } from '../../helpers/app';
import { makeTenant } from '../../helpers/factories';
import { signal } from '../../helpers/signal';

const t = useTestApp();

/** What `work` settled to within `ms`, or 'still waiting'. */
function within<T>(work: Promise<T>, ms: number): Promise<T | 'still waiting'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const waiting = new Promise<'still waiting'>((resolve) => {
    timer = setTimeout(() => resolve('still waiting'), ms);
  });
  return Promise.race([work, waiting]).finally(() => clearTimeout(timer));
}

/** Holds the clinic's lock in a transaction of its own until `release()`, then runs `then` in it. */
function holdLock(clinicId: string, then: (tx: Parameters<Parameters<typeof t.db.transaction>[0]>[0]) => Promise<void>) {
  const released = signal();
  const locked = signal();
  const done = t.db.transaction(async (tx) => {
    await lockClinic(tx, clinicId);
    locked.give();
    await released.reached;
    await then(tx);
  });
  return { held: locked.reached, release: released.give, done };
}

describe('the clinic lock', () => {
  it("lets the request log write the clinic's rows while a key roll holds it, and the roll then updates the key", async () => {
    const { clinic, keyRow } = await makeTenant(t.db);
    const roll = holdLock(clinic.id, async (tx) => {
      await tx
        .update(apiKeys)
        .set({ expiresAt: new Date(Date.now() + 60_000) })
        .where(eq(apiKeys.id, keyRow.id));
    });
    await roll.held;

    // The batch updates the key's last_used_at, then checks the clinic foreign key of its rows.
    const log = new RequestLogWriter({ flushRows: 1, flushAfterMs: 0 });
    log.add({
      apiKeyId: keyRow.id,
      clinicId: clinic.id,
      requestId: crypto.randomUUID(),
      method: 'GET',
      route: '/api/v1/me',
      status: 200,
      durationMs: 3,
    });
    const written = await within(log.flush(t.db), 3_000);
    roll.release();
    await roll.done;
    expect(written, 'the request-log write waited for the lock holder').toBe(1);

    const rows = await t.db.select().from(requestLogs).where(eq(requestLogs.apiKeyId, keyRow.id));
    expect(rows).toHaveLength(1);
    const [key] = await t.db.select().from(apiKeys).where(eq(apiKeys.id, keyRow.id));
    expect(key!.lastUsedAt).not.toBeNull();
  });

  it('still makes a second holder wait for the first', async () => {
    const { clinic } = await makeTenant(t.db);
    const first = holdLock(clinic.id, async () => {});
    await first.held;
    const second = t.db.transaction(async (tx) => {
      await lockClinic(tx, clinic.id);
    });
    expect(await within(second, 500)).toBe('still waiting');
    first.release();
    await first.done;
    await second;
  });

  it('answers the clinic mode, and nothing for an unknown clinic', async () => {
    const { clinic } = await makeTenant(t.db, { mode: 'sandbox' });
    await t.db.transaction(async (tx) => {
      expect(await lockClinic(tx, clinic.id)).toEqual({ mode: 'sandbox' });
      expect(await lockClinic(tx, crypto.randomUUID())).toBeUndefined();
    });
  });
});
