import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { clinics, goLiveRequests, invitations, messages, onboarding } from '../../../drizzle/schema';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant, makeUser } from '../../helpers/factories';

const t = useTestApp();
const DAY = 86_400_000;
const signer = { signerFirstName: 'Alex', signerLastName: 'Rivera', signerEmail: 'Alex@Brand.example' };
const goLive = (key: string, body: unknown = signer) => t.request('/api/v1/sandbox/go-live', { key, body });

const sandboxTenant = () => makeTenant(t.db, { mode: 'sandbox' });

async function rowsOf(clinicId: string) {
  return {
    requests: await t.db.select().from(goLiveRequests).where(eq(goLiveRequests.clinicId, clinicId)),
    invitations: await t.db.select().from(invitations).where(eq(invitations.clinicId, clinicId)),
    emails: await t.db
      .select()
      .from(messages)
      .where(and(eq(messages.clinicId, clinicId), eq(messages.kind, 'go_live_invitation'))),
  };
}

describe('POST /api/v1/sandbox/go-live', () => {
  it('records the request, the onboarding signer, goLiveRequestedAt, and invites the signer as admin (202)', async () => {
    const { clinic, key } = await sandboxTenant();
    expect(key.startsWith('svc_test_')).toBe(true);
    const res = await goLive(key);
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({ success: true, data: { status: 'requested', signerEmail: 'alex@brand.example' } });

    const { requests, invitations: invites, emails } = await rowsOf(clinic.id);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      status: 'requested',
      signerFirstName: 'Alex',
      signerLastName: 'Rivera',
      signerEmail: 'alex@brand.example',
    });
    expect(invites).toHaveLength(1);
    expect(invites[0]).toMatchObject({
      id: requests[0]!.invitationId,
      email: 'alex@brand.example',
      role: 'admin',
      source: 'go_live',
      status: 'pending',
    });
    expect(emails).toHaveLength(1);
    expect(emails[0]).toMatchObject({ channel: 'email', toAddress: 'alex@brand.example' });
    expect(emails[0]!.body).toContain('#token=');

    const [board] = await t.db.select().from(onboarding).where(eq(onboarding.clinicId, clinic.id));
    expect(board).toMatchObject({
      signerFirstName: 'Alex',
      signerLastName: 'Rivera',
      signerEmail: 'alex@brand.example',
      currentStep: 'business_details',
    });
    const [row] = await t.db.select().from(clinics).where(eq(clinics.id, clinic.id));
    expect(row!.goLiveRequestedAt).not.toBeNull();
    expect(row!.mode).toBe('sandbox');

    // The invitation shows in the roster.
    const roster = await (await t.request('/api/v1/team/members', { key })).json();
    expect(roster.data.invitations).toMatchObject([{ id: invites[0]!.id, source: 'go_live', role: 'admin' }]);
  });

  it('answers a second request the same 202 without a second invitation, also when sent concurrently', async () => {
    const { clinic, key } = await sandboxTenant();
    const results = await Promise.all([goLive(key), goLive(key), goLive(key)]);
    expect(results.map((r) => r.status)).toEqual([202, 202, 202]);
    const again = await goLive(key, { ...signer, signerEmail: 'someone.else@brand.example' });
    expect(again.status).toBe(202);
    expect((await again.json()).data).toEqual({ status: 'requested', signerEmail: 'alex@brand.example' });
    const { requests, invitations: invites, emails } = await rowsOf(clinic.id);
    expect([requests.length, invites.length, emails.length]).toEqual([1, 1, 1]);
  });

  it("sends a fresh invitation when the pending request's one has expired or was cancelled", async () => {
    const { clinic, key } = await sandboxTenant();
    expect((await goLive(key)).status).toBe(202);
    t.clock.advance(8 * DAY);
    expect((await goLive(key)).status).toBe(202);
    const { requests, invitations: invites, emails } = await rowsOf(clinic.id);
    expect(requests).toHaveLength(1);
    expect(invites.map((i) => i.status).sort()).toEqual(['expired', 'pending']);
    expect(requests[0]!.invitationId).toBe(invites.find((i) => i.status === 'pending')!.id);
    expect(emails).toHaveLength(2);
  });

  it('replaces a pending team invitation of the signer; a signer who is already a member gets the email only', async () => {
    const { clinic, key } = await sandboxTenant();
    expect((await t.request('/api/v1/team/invite', { key, body: { email: 'alex@brand.example', role: 'member' } })).status).toBe(201);
    expect((await goLive(key)).status).toBe(202);
    const { invitations: invites } = await rowsOf(clinic.id);
    expect(invites.map((i) => [i.source, i.status]).sort()).toEqual([
      ['go_live', 'pending'],
      ['team', 'cancelled'],
    ]);

    const other = await sandboxTenant();
    const member = await makeUser(t.db, other.clinic.id, { role: 'admin' });
    const res = await goLive(other.key, { ...signer, signerEmail: member.email });
    expect(res.status).toBe(202);
    const rows = await rowsOf(other.clinic.id);
    expect(rows.requests[0]!.invitationId).toBeNull();
    expect(rows.invitations).toHaveLength(0);
    expect(rows.emails).toHaveLength(1);
  });

  it('keeps signer fields an existing onboarding row already has', async () => {
    const { clinic, key } = await sandboxTenant();
    await t.db.insert(onboarding).values({ clinicId: clinic.id, signerFirstName: 'Jo', signerLastName: 'Early', signerEmail: null });
    expect((await goLive(key)).status).toBe(202);
    const [board] = await t.db.select().from(onboarding).where(eq(onboarding.clinicId, clinic.id));
    expect(board).toMatchObject({ signerFirstName: 'Jo', signerLastName: 'Early', signerEmail: 'alex@brand.example' });
  });

  it('refuses a live key with 403 SANDBOX_KEY_REQUIRED and writes nothing', async () => {
    const { clinic, key } = await makeTenant(t.db);
    expect(key.startsWith('svc_live_')).toBe(true);
    const res = await goLive(key);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ success: false, code: 'SANDBOX_KEY_REQUIRED' });
    const { requests, invitations: invites } = await rowsOf(clinic.id);
    expect([requests.length, invites.length]).toEqual([0, 0]);
  });

  it('answers 409 when the sandbox clinic has already gone live', async () => {
    const { clinic, key } = await sandboxTenant();
    await t.db.update(clinics).set({ mode: 'live' }).where(eq(clinics.id, clinic.id));
    const res = await goLive(key);
    expect(res.status).toBe(409);
    expect((await res.json()).message).toBe('The clinic is already live');
  });

  it('answers 401 once the 30-day sandbox window is over', async () => {
    const { clinic, key } = await sandboxTenant();
    const [row] = await t.db.select().from(clinics).where(eq(clinics.id, clinic.id));
    t.clock.advance(row!.sandboxExpiresAt!.getTime() - Date.now() + 1_000);
    const res = await goLive(key);
    expect(res.status).toBe(401);
    expect((await rowsOf(clinic.id)).requests).toHaveLength(0);
  });

  it('needs the write scope and validates the body (400 naming the field)', async () => {
    const { clinic, key } = await sandboxTenant();
    const readOnly = await makeKey(t.db, clinic.id, { isSandbox: true, scopes: ['read'] });
    expect((await (await goLive(readOnly.raw)).json()).code).toBe('INSUFFICIENT_SCOPE');
    const cases: [unknown, string][] = [
      [{ signerLastName: 'R', signerEmail: 'a@b.example' }, 'body.signerFirstName'],
      [{ ...signer, signerFirstName: '  ' }, 'body.signerFirstName'],
      [{ ...signer, signerLastName: 'x'.repeat(101) }, 'body.signerLastName'],
      [{ ...signer, signerEmail: 'not an email' }, 'body.signerEmail'],
      [{ ...signer, signerEmail: 42 }, 'body.signerEmail'],
      [{ ...signer, signerFirstName: 'A\u0007' }, 'body.signerFirstName'],
      [{ ...signer, plan: 'growth' }, 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await goLive(key, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await res.json()).message, JSON.stringify(body)).toContain(field);
    }
    expect((await rowsOf(clinic.id)).requests).toHaveLength(0);
  });
});
