// The five-key cap and rolled keys (docs/api-keys.md, "The cap and rolled keys"): at most five keys of a
// clinic authenticate, keys in grace included, and a slot (a key and the keys it was rolled from) has at
// most one key in grace. Rolling a key ends its predecessor's grace at once; revoking a key revokes
// every predecessor still in grace. The isolates' key caches: test/api/platform/key-cache.test.ts;
// random sequences: api-keys-cap-property.test.ts.
import { eq, inArray } from 'drizzle-orm';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { apiKeys } from '../../../drizzle/schema';
import { MAX_ROLL_OVERLAP_SECONDS } from '../../../src/modules/access/api-keys/schemas';
import { MAX_ACTIVE_KEYS } from '../../../src/modules/access/api-keys/service';
import { type TestResponse, useTestApp } from '../../helpers/app';
import { makeClinic, makeUser, TEST_PASSWORD } from '../../helpers/factories';
import { waitForLockWaiters } from '../../helpers/lock-waits';

const t = useTestApp();

async function admin() {
  const clinic = await makeClinic(t.db);
  const user = await makeUser(t.db, clinic.id, { role: 'owner' });
  const res = await t.request('/auth/signin', { body: { email: user.email, password: TEST_PASSWORD } });
  return { clinicId: clinic.id, token: (await res.json()).data.token as string };
}

interface Issued {
  id: string;
  apiKey: string;
}

const create = (token: string) => t.request('/api-keys', { token, body: { name: 'Server' } });
const rollRequest = (token: string, id: string, expiresInSeconds = MAX_ROLL_OVERLAP_SECONDS) =>
  t.request(`/api-keys/${id}/roll`, { token, body: { expiresInSeconds } });
const revoke = (token: string, id: string) => t.request(`/api-keys/${id}`, { token, method: 'DELETE' });

async function issued(res: TestResponse | Promise<TestResponse>): Promise<Issued> {
  const answer = await res;
  expect(answer.status, await answer.clone().text()).toBe(201);
  return (await answer.json()).data;
}

const me = async (key: Issued) => (await t.request('/api/v1/me', { key: key.apiKey })).status;
/** Which of the keys answer 200 on /me, as a list of booleans. */
const working = (keys: Issued[]) => Promise.all(keys.map(async (k) => (await me(k)) === 200));

/**
 * Starts the requests while the clinic's lock is held by another session, and lets them go once every
 * one of them waits for it: they then run one after the other, in an order the test does not choose.
 */
async function racing(clinicId: string, requests: (() => Promise<TestResponse>)[]): Promise<TestResponse[]> {
  const locker = new pg.Client({ connectionString: t.databaseUrl });
  await locker.connect();
  try {
    await locker.query('begin');
    await locker.query('select 1 from clinics where id = $1 for no key update', [clinicId]);
    const pending = requests.map((request) => request());
    await waitForLockWaiters(locker, requests.length);
    await locker.query('commit');
    return await Promise.all(pending);
  } finally {
    await locker.query('rollback').catch(() => {});
    await locker.end();
  }
}

/** A key K and its successor K2 by a roll with a 7-day grace: both work, and both count. */
async function pair(token: string) {
  const first = await issued(create(token));
  const second = await issued(rollRequest(token, first.id));
  expect(await working([first, second])).toEqual([true, true]);
  return [first, second] as const;
}

describe('roll chains (the issue: the cap bypassed by rolling the successor again)', () => {
  it('rolling 8 times with a 7-day grace leaves two keys working (the tip and its predecessor), not nine', async () => {
    const { token } = await admin();
    const keys = [await issued(create(token))];
    // Each key is used (and so cached in the isolate) before the next roll.
    for (let i = 0; i < 8; i++) {
      expect(await me(keys.at(-1)!)).toBe(200);
      keys.push(await issued(rollRequest(token, keys.at(-1)!.id)));
    }
    expect(await working(keys)).toEqual([...Array(7).fill(false), true, true]);
    // Three more keys fill the cap: the tip and its predecessor in grace are two of the five.
    for (let i = 0; i < MAX_ACTIVE_KEYS - 2; i++) await issued(create(token));
    const sixth = await create(token);
    expect(sixth.status).toBe(409);
    expect((await sixth.json()).code).toBe('ACTIVE_KEY_LIMIT_REACHED');
  });

  it("a roll ends the predecessor's grace at once (expiresAt = the roll's time, not revoked); revoking a key in grace leaves its successor", async () => {
    const { token } = await admin();
    const [first, second] = await pair(token);
    t.clock.freezeAt(Date.now());
    const third = await issued(rollRequest(token, second.id));
    const [row] = await t.db.select().from(apiKeys).where(eq(apiKeys.id, first.id));
    expect(row!.expiresAt!.getTime()).toBe(t.clock.now());
    expect(row!.revokedAt).toBeNull();
    expect(await working([first, second, third])).toEqual([false, true, true]);

    expect((await revoke(token, second.id)).status).toBe(200);
    expect(await working([first, second, third])).toEqual([false, false, true]);
  });

  it('revoking the tip revokes its predecessor in grace: nothing of the slot works, and two keys can be created', async () => {
    const { token } = await admin();
    const keys = await pair(token);
    for (let i = 0; i < MAX_ACTIVE_KEYS - 2; i++) await issued(create(token));
    expect((await create(token)).status).toBe(409);
    const res = await revoke(token, keys[1].id);
    expect(res.status).toBe(200);
    expect((await res.json()).data).toMatchObject({ id: keys[1].id, revokedAt: expect.any(String) });
    expect(await working([...keys])).toEqual([false, false]);
    const [predecessor] = await t.db.select().from(apiKeys).where(eq(apiKeys.id, keys[0].id));
    expect(predecessor!.revokedAt).not.toBeNull();
    await issued(create(token));
    await issued(create(token));
    expect((await create(token)).status).toBe(409);
  });

  it('at five working keys a roll with a grace is refused (the old key would be a sixth); with expiresInSeconds 0 it swaps one key for another', async () => {
    const { token } = await admin();
    const keys = [];
    for (let i = 0; i < MAX_ACTIVE_KEYS; i++) keys.push(await issued(create(token)));
    const refused = await rollRequest(token, keys[0]!.id);
    expect(refused.status).toBe(409);
    expect((await refused.json()).code).toBe('ACTIVE_KEY_LIMIT_REACHED');
    expect(await working(keys)).toEqual(Array(MAX_ACTIVE_KEYS).fill(true));
    const swapped = await issued(rollRequest(token, keys[0]!.id, 0));
    expect(await working([...keys, swapped])).toEqual([false, ...Array(MAX_ACTIVE_KEYS - 1).fill(true), true]);
    // The successor's own roll with a grace still has no room; with its predecessor in grace it would.
    expect((await rollRequest(token, swapped.id)).status).toBe(409);
  });
});

// Keys rolled before the fix can be in states the API no longer makes: a chain with several keys in
// grace, a key in grace whose successor was revoked. Made here straight in the database.
describe('keys left by rolls made before the rule', () => {
  it('count a key in grace whose successor is gone as an active key', async () => {
    const { token } = await admin();
    const [orphan, revokedTip] = await pair(token);
    await t.db.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, revokedTip.id));
    t.forgetKeys();
    expect(await working([orphan, revokedTip])).toEqual([true, false]);
    for (let i = 0; i < MAX_ACTIVE_KEYS - 1; i++) await issued(create(token));
    expect((await create(token)).status).toBe(409);
  });

  it('revoking the tip of a chain with several keys in grace revokes them all; rolling another such tip ends them all', async () => {
    const { token } = await admin();
    const chainOf = async () => {
      const keys = [await issued(create(token))];
      for (let i = 0; i < 3; i++) keys.push(await issued(rollRequest(token, keys.at(-1)!.id)));
      // Back into grace, as the rolls before the rule left them.
      const inAWeek = new Date(Date.now() + MAX_ROLL_OVERLAP_SECONDS * 1000 - 60_000);
      await t.db
        .update(apiKeys)
        .set({ expiresAt: inAWeek })
        .where(
          inArray(
            apiKeys.id,
            keys.slice(0, -1).map((k) => k.id),
          ),
        );
      t.forgetKeys();
      expect(await working(keys)).toEqual([true, true, true, true]);
      return keys;
    };
    const revoked = await chainOf();
    expect((await revoke(token, revoked.at(-1)!.id)).status).toBe(200);
    expect(await working(revoked)).toEqual([false, false, false, false]);

    const rolled = await chainOf();
    const next = await issued(rollRequest(token, rolled.at(-1)!.id));
    expect(await working([...rolled, next])).toEqual([false, false, false, true, true]);
  });
});

// The clinic lock serialises key writes: each race is held behind it until every racer waits, then
// released; either order must end in a state the rule allows.
describe('races', () => {
  it('two rolls of the same key: one 201, one 409; one successor, and the predecessor in grace ended', async () => {
    const { clinicId, token } = await admin();
    const [first, second] = await pair(token);
    const answers = await racing(clinicId, [() => rollRequest(token, second.id), () => rollRequest(token, second.id)]);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
    const third: Issued = (await answers.find((a) => a.status === 201)!.json()).data;
    expect((await answers.find((a) => a.status === 409)!.json()).message).toMatch(/already rolled/);
    expect(await working([first, second, third])).toEqual([false, true, true]);
    expect(await t.db.$count(apiKeys, eq(apiKeys.clinicId, clinicId))).toBe(3);
  });

  it('a roll and a revocation of the same key: whichever runs first, nothing of the old slot works on', async () => {
    const { clinicId, token } = await admin();
    const [first, second] = await pair(token);
    const [rolled, revoked] = await racing(clinicId, [() => rollRequest(token, second.id), () => revoke(token, second.id)]);
    expect(revoked!.status).toBe(200);
    expect([201, 409]).toContain(rolled!.status);
    expect(await working([first, second])).toEqual([false, false]);
    // Rolled first: its successor is the slot's only key. Revoked first: the roll was refused.
    if (rolled!.status === 201) expect(await working([(await rolled!.json()).data])).toEqual([true]);
    expect(await t.db.$count(apiKeys, eq(apiKeys.clinicId, clinicId))).toBe(rolled!.status === 201 ? 3 : 2);
  });

  it('a write that waited for the lock reads the time once it holds it: a key ended while it waited does not count', async () => {
    const { clinicId, token } = await admin();
    t.clock.freezeAt(Date.now());
    const keys = [];
    for (let i = 0; i < MAX_ACTIVE_KEYS; i++) keys.push(await issued(create(token)));
    // The holder ends a key "now" (as a roll ends a predecessor) while a creation waits; then time
    // moves on before it commits. Read before the wait, the creation's clock would still count it.
    const locker = new pg.Client({ connectionString: t.databaseUrl });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query('select 1 from clinics where id = $1 for no key update', [clinicId]);
      const waiting = create(token);
      await waitForLockWaiters(locker, 1, 'the creation');
      await locker.query('update api_keys set expires_at = $1 where id = $2', [new Date(t.clock.now() + 500), keys[0]!.id]);
      t.clock.advance(1_000);
      await locker.query('commit');
      expect((await waiting).status).toBe(201);
    } finally {
      await locker.query('rollback').catch(() => {});
      await locker.end();
    }
  });

  it('a creation and a roll at four working keys both succeed, in either order; then the cap is reached', async () => {
    const { clinicId, token } = await admin();
    const [first, second] = await pair(token);
    for (let i = 0; i < MAX_ACTIVE_KEYS - 3; i++) await issued(create(token));
    const [created, rolled] = await racing(clinicId, [() => create(token), () => rollRequest(token, second.id)]);
    expect([created!.status, rolled!.status]).toEqual([201, 201]);
    const third: Issued = (await rolled!.json()).data;
    expect(await working([first, second, third])).toEqual([false, true, true]);
    // At five working keys: a creation racing a roll is refused; the roll is not (it ends the
    // predecessor in grace, which makes room for the key it puts in grace).
    const [refused, again] = await racing(clinicId, [() => create(token), () => rollRequest(token, third.id)]);
    expect([refused!.status, again!.status]).toEqual([409, 201]);
    expect(await working([second, third, (await again!.json()).data])).toEqual([false, true, true]);
  });
});
