import { createHash } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { invitations, messages, supportTickets, users } from '../../../drizzle/schema';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant, makeUser } from '../../helpers/factories';
import { countStatements } from '../../helpers/statements';

const t = useTestApp();
const DAY = 86_400_000;

async function tenant() {
  const tenant = await makeTenant(t.db);
  const readOnly = await makeKey(t.db, tenant.clinic.id, { scopes: ['read'] });
  return { ...tenant, readKey: readOnly.raw };
}

const invite = (key: string, body: unknown) => t.request('/api/v1/team/invite', { key, body });
const roster = (key: string) => t.request('/api/v1/team/members', { key });

const statements = (send: () => Promise<{ status: number }>) => countStatements(t, send);

async function makeInvitation(clinicId: string, values: Partial<typeof invitations.$inferInsert> = {}) {
  const [row] = await t.db
    .insert(invitations)
    .values({
      clinicId,
      email: `inv-${crypto.randomUUID().slice(0, 8)}@example.test`,
      role: 'member',
      tokenHash: crypto.randomUUID(),
      expiresAt: new Date(Date.now() + 3 * DAY),
      ...values,
    })
    .returning();
  return row!;
}

describe('GET /api/v1/team/members', () => {
  it('lists every staff user and the pending, unexpired invitations, in one query', async () => {
    const { clinic, owner, readKey } = await tenant();
    const admin = await makeUser(t.db, clinic.id, { role: 'admin' });
    const removed = await makeUser(t.db, clinic.id, { role: 'member', isActive: false });
    const pending = await makeInvitation(clinic.id, { role: 'admin' });
    await makeInvitation(clinic.id, { expiresAt: new Date(Date.now() - DAY) }); // expired, still marked pending
    await makeInvitation(clinic.id, { status: 'cancelled' });
    await makeInvitation(clinic.id, { status: 'accepted' });
    const other = await tenant();
    await makeUser(t.db, other.clinic.id, { role: 'admin' });
    await makeInvitation(other.clinic.id);

    const res = await roster(readKey);
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data.members.map((m: { id: string }) => m.id).sort()).toEqual([owner.id, admin.id, removed.id].sort());
    expect(data.members.find((m: { id: string }) => m.id === removed.id)).toMatchObject({
      isActive: false,
      role: 'member',
      email: removed.email,
    });
    expect(data.members.find((m: { id: string }) => m.id === owner.id)).toMatchObject({
      role: 'owner',
      firstName: 'Test',
      lastName: 'User',
      isActive: true,
      lastSignInAt: null,
    });
    expect(JSON.stringify(data)).not.toContain('password');
    expect(data.invitations).toEqual([
      {
        id: pending.id,
        email: pending.email,
        role: 'admin',
        status: 'pending',
        source: 'team',
        expiresAt: pending.expiresAt.toISOString(),
        createdAt: pending.createdAt.toISOString(),
      },
    ]);
    expect(await statements(() => roster(readKey))).toEqual({ status: 200, count: 2 });
  });
});

describe('POST /api/v1/team/invite', () => {
  it('creates a pending invitation valid 7 days, stores only the token hash, and emails the link (201)', async () => {
    const { clinic, key } = await tenant();
    const at = Math.floor(Date.now() / 1000) * 1000;
    t.clock.freezeAt(at);
    const res = await invite(key, { email: '  New.Hire@Example.com ', role: 'admin' });
    expect(res.status).toBe(201);
    const { data } = await res.json();
    expect(data).toMatchObject({
      email: 'new.hire@example.com',
      role: 'admin',
      status: 'pending',
      source: 'team',
      expiresAt: new Date(at + 7 * DAY).toISOString(),
      createdAt: new Date(at).toISOString(),
    });
    expect(Object.keys(data)).not.toContain('token');

    const [row] = await t.db.select().from(invitations).where(eq(invitations.id, data.id));
    expect(row!.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    const [mail] = await t.db
      .select()
      .from(messages)
      .where(and(eq(messages.clinicId, clinic.id), eq(messages.kind, 'invitation')));
    expect(mail).toMatchObject({ channel: 'email', toAddress: 'new.hire@example.com', status: 'sent' });
    expect(mail!.subject).toContain(clinic.name);
    const token = /#token=([A-Za-z0-9_-]+)/.exec(mail!.body)![1]!;
    expect(createHash('sha256').update(token).digest('hex')).toBe(row!.tokenHash);

    expect((await roster(key)).status).toBe(200);
    expect((await (await roster(key)).json()).data.invitations.map((i: { id: string }) => i.id)).toEqual([data.id]);
  });

  it('refuses a second pending invitation for the same email (409), allows it again once cancelled or expired', async () => {
    const { clinic, key } = await tenant();
    const first = await invite(key, { email: 'dup@example.com', role: 'member' });
    expect(first.status).toBe(201);
    const dup = await invite(key, { email: 'DUP@example.com', role: 'admin' });
    expect(dup.status).toBe(409);
    expect(await dup.json()).toMatchObject({ code: 'CONFLICT', message: 'A pending invitation for dup@example.com already exists' });
    expect(await t.db.$count(invitations, eq(invitations.clinicId, clinic.id))).toBe(1);

    // Another clinic may invite the same email.
    const other = await tenant();
    expect((await invite(other.key, { email: 'dup@example.com', role: 'member' })).status).toBe(201);

    // After 7 days the first one has expired: a new invitation is accepted and the old row is marked expired.
    const id = (await first.json()).data.id;
    t.clock.advance(7 * 86_400_000 + 1_000);
    expect((await roster(key)).status).toBe(200);
    expect((await (await roster(key)).json()).data.invitations).toEqual([]);
    const again = await invite(key, { email: 'dup@example.com', role: 'member' });
    expect(again.status).toBe(201);
    const [old] = await t.db.select().from(invitations).where(eq(invitations.id, id));
    expect(old!.status).toBe('expired');

    // Cancelled: free again.
    const againId = (await again.json()).data.id;
    expect((await t.request(`/api/v1/team/invitations/${againId}`, { key, method: 'DELETE' })).status).toBe(200);
    expect((await invite(key, { email: 'dup@example.com', role: 'member' })).status).toBe(201);
  });

  it('refuses an email of an active member of the clinic (409); a removed member may be invited again', async () => {
    const { clinic, key, owner } = await tenant();
    const res = await invite(key, { email: owner.email, role: 'member' });
    expect(res.status).toBe(409);
    expect((await res.json()).message).toContain('already a member');
    const removed = await makeUser(t.db, clinic.id, { role: 'member', isActive: false });
    expect((await invite(key, { email: removed.email, role: 'member' })).status).toBe(201);
  });

  it('answers one 201 and one 409 for two concurrent invitations of the same email', async () => {
    const { clinic, key } = await tenant();
    const results = await Promise.all([
      invite(key, { email: 'race@example.com', role: 'member' }),
      invite(key, { email: 'race@example.com', role: 'member' }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(await t.db.$count(invitations, eq(invitations.clinicId, clinic.id))).toBe(1);
    expect(await t.db.$count(messages, and(eq(messages.clinicId, clinic.id), eq(messages.kind, 'invitation')))).toBe(1);
  });

  it('refuses bad input with 400 naming the field, owner included', async () => {
    const { key, readKey } = await tenant();
    const cases: [unknown, string][] = [
      [{ role: 'member' }, 'body.email'],
      [{ email: 'not-an-email', role: 'member' }, 'body.email'],
      [{ email: `${'a'.repeat(250)}@example.com`, role: 'member' }, 'body.email'],
      [{ email: 'a\u0000b@example.com', role: 'member' }, 'body.email'],
      [{ email: 'x@example.com' }, 'body.role'],
      [{ email: 'x@example.com', role: 'owner' }, 'body.role'],
      [{ email: 'x@example.com', role: 'superuser' }, 'body.role'],
      [{ email: 'x@example.com', role: 'member', extra: true }, 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await invite(key, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await res.json()).message, JSON.stringify(body)).toContain(field);
    }
    const owner = await invite(key, { email: 'x@example.com', role: 'owner' });
    expect((await owner.json()).message).toContain('ownership cannot be assigned');
    expect((await invite(readKey, { email: 'x@example.com', role: 'member' })).status).toBe(403);
  });
});

describe('DELETE /api/v1/team/invitations/{invitationId}', () => {
  it('cancels a pending invitation; a second cancel, an accepted or an expired one is 409', async () => {
    const { clinic, key } = await tenant();
    const pending = await makeInvitation(clinic.id);
    const res = await t.request(`/api/v1/team/invitations/${pending.id}`, { key, method: 'DELETE' });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toMatchObject({ id: pending.id, status: 'cancelled' });
    const [row] = await t.db.select().from(invitations).where(eq(invitations.id, pending.id));
    expect(row!.cancelledAt).not.toBeNull();

    const again = await t.request(`/api/v1/team/invitations/${pending.id}`, { key, method: 'DELETE' });
    expect(again.status).toBe(409);
    expect((await again.json()).message).toContain('already cancelled');

    const accepted = await makeInvitation(clinic.id, { status: 'accepted' });
    expect((await t.request(`/api/v1/team/invitations/${accepted.id}`, { key, method: 'DELETE' })).status).toBe(409);

    const expired = await makeInvitation(clinic.id, { expiresAt: new Date(Date.now() - 1_000) });
    const res3 = await t.request(`/api/v1/team/invitations/${expired.id}`, { key, method: 'DELETE' });
    expect(res3.status).toBe(409);
    expect((await res3.json()).message).toContain('already expired');
    const [expiredRow] = await t.db.select().from(invitations).where(eq(invitations.id, expired.id));
    expect(expiredRow!.status).toBe('expired');
  });

  it('an expired one is marked expired with its 409 under an Idempotency-Key too, and the retry replays the 409', async () => {
    const { clinic, key } = await tenant();
    const expired = await makeInvitation(clinic.id, { expiresAt: new Date(Date.now() - 1_000) });
    const send = () =>
      t.request(`/api/v1/team/invitations/${expired.id}`, {
        key,
        method: 'DELETE',
        headers: { 'idempotency-key': `cancel-${expired.id}` },
      });
    const first = await send();
    expect(first.status).toBe(409);
    const [row] = await t.db.select().from(invitations).where(eq(invitations.id, expired.id));
    expect(row!.status).toBe('expired');
    const retry = await send();
    expect(retry.status).toBe(409);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.json()).toEqual(await first.json());
  });

  it("answers the same 404 for another clinic's, an unknown and a malformed id, and leaves theirs alone", async () => {
    const { key } = await tenant();
    const other = await tenant();
    const theirs = await makeInvitation(other.clinic.id);
    const bodies = [];
    for (const id of [theirs.id, crypto.randomUUID(), 'not-a-uuid']) {
      const res = await t.request(`/api/v1/team/invitations/${id}`, { key, method: 'DELETE' });
      expect(res.status).toBe(404);
      bodies.push(await res.json());
    }
    expect(bodies[0]).toEqual(bodies[1]);
    expect(bodies[1]).toEqual(bodies[2]);
    const [row] = await t.db.select().from(invitations).where(eq(invitations.id, theirs.id));
    expect(row!.status).toBe('pending');
  });
});

describe('DELETE /api/v1/team/{userId}', () => {
  it('deactivates a member: sign-in answers 401 and their existing token stops working', async () => {
    const { clinic, key } = await tenant();
    const admin = await makeUser(t.db, clinic.id, { role: 'admin' });
    const signIn = () => t.request('/auth/signin', { body: { email: admin.email, password: admin.password } });
    const signedIn = await signIn();
    expect(signedIn.status).toBe(200);
    const { token } = (await signedIn.json()).data;
    expect((await t.request('/api-keys', { token })).status).toBe(200);

    const res = await t.request(`/api/v1/team/${admin.id}`, { key, method: 'DELETE' });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toMatchObject({ id: admin.id, isActive: false, role: 'admin' });

    expect((await signIn()).status).toBe(401);
    expect((await t.request('/api-keys', { token })).status).toBe(401);
    const [row] = await t.db.select().from(users).where(eq(users.id, admin.id));
    expect(row!.isActive).toBe(false);

    // Removing again changes nothing and answers the same.
    const again = await t.request(`/api/v1/team/${admin.id}`, { key, method: 'DELETE' });
    expect(again.status).toBe(200);
    expect((await again.json()).data.isActive).toBe(false);
  });

  it('unassigns the tickets of the removed member that are not closed', async () => {
    const { clinic, key } = await tenant();
    const member = await makeUser(t.db, clinic.id, { role: 'member' });
    const [open] = await t.db
      .insert(supportTickets)
      .values({ clinicId: clinic.id, title: 'A', description: 'a', assignedUserId: member.id })
      .returning();
    const [closed] = await t.db
      .insert(supportTickets)
      .values({ clinicId: clinic.id, title: 'B', description: 'b', status: 'closed', assignedUserId: member.id })
      .returning();
    expect((await t.request(`/api/v1/team/${member.id}`, { key, method: 'DELETE' })).status).toBe(200);
    const rows = await t.db.select().from(supportTickets).where(eq(supportTickets.clinicId, clinic.id));
    expect(rows.find((r) => r.id === open!.id)!.assignedUserId).toBeNull();
    expect(rows.find((r) => r.id === closed!.id)!.assignedUserId).toBe(member.id);
  });

  it('refuses to remove the owner (409), who can still sign in', async () => {
    const { key, owner } = await tenant();
    const res = await t.request(`/api/v1/team/${owner.id}`, { key, method: 'DELETE' });
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ code: 'CONFLICT', message: 'The clinic owner cannot be removed from the team' });
    expect((await t.request('/auth/signin', { body: { email: owner.email, password: owner.password } })).status).toBe(200);
  });

  it("answers the same 404 for another clinic's user, an unknown and a malformed id", async () => {
    const { key } = await tenant();
    const other = await tenant();
    const theirs = await makeUser(t.db, other.clinic.id, { role: 'member' });
    const bodies = [];
    for (const id of [theirs.id, crypto.randomUUID(), 'nope']) {
      const res = await t.request(`/api/v1/team/${id}`, { key, method: 'DELETE' });
      expect(res.status).toBe(404);
      bodies.push(await res.json());
    }
    expect(bodies[0]).toEqual(bodies[1]);
    expect(bodies[1]).toEqual(bodies[2]);
    const [row] = await t.db.select().from(users).where(eq(users.id, theirs.id));
    expect(row!.isActive).toBe(true);
  });
});

describe('PATCH /api/v1/team/{userId}/role', () => {
  const patch = (key: string, userId: string, body: unknown) => t.request(`/api/v1/team/${userId}/role`, { key, method: 'PATCH', body });

  it('changes a member to admin and back; an admin can then manage keys', async () => {
    const { clinic, key } = await tenant();
    const member = await makeUser(t.db, clinic.id, { role: 'member' });
    const res = await patch(key, member.id, { role: 'admin' });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toMatchObject({ id: member.id, role: 'admin', isActive: true });
    const { token } = (await (await t.request('/auth/signin', { body: { email: member.email, password: member.password } })).json()).data;
    expect((await t.request('/api-keys', { token })).status).toBe(200);

    const back = await patch(key, member.id, { role: 'member' });
    expect((await back.json()).data.role).toBe('member');
    // The token is re-checked against the database: a member may not manage keys.
    expect((await t.request('/api-keys', { token })).status).toBe(403);
  });

  it('refuses to assign ownership (400), to change the owner (409) or a removed member (409)', async () => {
    const { clinic, key, owner } = await tenant();
    const member = await makeUser(t.db, clinic.id, { role: 'member' });
    const assign = await patch(key, member.id, { role: 'owner' });
    expect(assign.status).toBe(400);
    expect((await assign.json()).message).toContain('body.role: must be admin or member (ownership cannot be assigned)');

    const demote = await patch(key, owner.id, { role: 'admin' });
    expect(demote.status).toBe(409);
    expect((await demote.json()).message).toBe("The clinic owner's role cannot be changed");
    const [ownerRow] = await t.db.select().from(users).where(eq(users.id, owner.id));
    expect(ownerRow!.role).toBe('owner');

    const removed = await makeUser(t.db, clinic.id, { role: 'member', isActive: false });
    expect((await patch(key, removed.id, { role: 'admin' })).status).toBe(409);

    for (const body of [{}, { role: 'member', extra: 1 }, { role: 5 }]) {
      expect((await patch(key, member.id, body)).status, JSON.stringify(body)).toBe(400);
    }
  });

  it("answers the same 404 for another clinic's user, an unknown and a malformed id", async () => {
    const { key } = await tenant();
    const other = await tenant();
    const theirs = await makeUser(t.db, other.clinic.id, { role: 'member' });
    const bodies = [];
    for (const id of [theirs.id, crypto.randomUUID(), 'nope']) {
      const res = await patch(key, id, { role: 'admin' });
      expect(res.status).toBe(404);
      bodies.push(await res.json());
    }
    expect(bodies[0]).toEqual(bodies[1]);
    expect(bodies[1]).toEqual(bodies[2]);
    const [row] = await t.db.select().from(users).where(eq(users.id, theirs.id));
    expect(row!.role).toBe('member');
  });
});

describe('expireTeamInvitations sweep', () => {
  it('marks pending invitations past their expiry as expired, and only those', async () => {
    const { expireTeamInvitations } = await import('../../../src/modules/organization/team/sweeps');
    const { clinic } = await tenant();
    const stale = await makeInvitation(clinic.id, { expiresAt: new Date(Date.now() - 1_000) });
    const fresh = await makeInvitation(clinic.id);
    const cancelled = await makeInvitation(clinic.id, { status: 'cancelled', expiresAt: new Date(Date.now() - 1_000) });
    await expireTeamInvitations(t.db, new Date(), t.services);
    const rows = await t.db.select().from(invitations).where(eq(invitations.clinicId, clinic.id));
    const status = (id: string) => rows.find((r) => r.id === id)!.status;
    expect([status(stale.id), status(fresh.id), status(cancelled.id)]).toEqual(['expired', 'pending', 'cancelled']);
  });
});
