// The demo data of the team and support areas, read through the API: both live clinics have a team
// beside their owner, a pending invitation, conversations and tickets; the seed is idempotent and a
// removed demo member cannot sign in.
import { beforeAll, describe, expect, it } from 'vitest';
import { seedCatalog } from '../../../scripts/seed/catalog';
import { seedFoundation } from '../../../scripts/seed/foundation';
import { DEMO, DEMO_PASSWORD } from '../../../scripts/seed/ids';
import { seedConversationId, seedStaffId, seedTeamAndSupport, seedTicketId } from '../../../scripts/seed/team-support';
import { useTestApp } from '../../helpers/app';
import { makeKey } from '../../helpers/factories';

const t = useTestApp();
const keys: string[] = [];

beforeAll(async () => {
  const now = new Date();
  await seedFoundation(t.db, now);
  await seedCatalog(t.db, now);
  await seedTeamAndSupport(t.db, now);
  await seedTeamAndSupport(t.db, now); // idempotent
  keys.push((await makeKey(t.db, DEMO.clinics.demo)).raw, (await makeKey(t.db, DEMO.clinics.harbor)).raw);
});

const get = async (key: string, path: string) => {
  const res = await t.request(path, { key });
  expect(res.status, path).toBe(200);
  return res.json();
};

describe('team and support demo data', () => {
  it('gives each live clinic an owner, an admin, a member, a removed member and one pending invitation', async () => {
    for (const [c, key] of keys.entries()) {
      const { data } = await get(key, '/api/v1/team/members');
      expect(data.members.map((m: { role: string; isActive: boolean }) => `${m.role}:${m.isActive}`).sort()).toEqual([
        'admin:true',
        'member:false',
        'member:true',
        'owner:true',
      ]);
      expect(data.invitations).toHaveLength(1);
      expect(data.invitations[0].email).toBe(`new.hire@${c === 0 ? 'demo' : 'harbor'}-clinic.test`);
    }
  });

  it('lets the demo admin sign in with the demo password, not the removed member', async () => {
    expect((await t.request('/auth/signin', { body: { email: 'admin@demo-clinic.test', password: DEMO_PASSWORD } })).status).toBe(200);
    expect((await t.request('/auth/signin', { body: { email: 'former@demo-clinic.test', password: DEMO_PASSWORD } })).status).toBe(401);
  });

  it('has open and resolved conversations with an internal note, and tickets in every status', async () => {
    for (const [c, key] of keys.entries()) {
      const open = (await get(key, `/api/v1/conversations/${seedConversationId(c, 1)}`)).data;
      expect(open.status).toBe('open');
      expect(open.patient).not.toBeNull();
      expect(open.messages.some((m: { isInternalNote: boolean }) => m.isInternalNote)).toBe(true);
      expect(open.messages.find((m: { authorType: string }) => m.authorType === 'staff').authorUserId).toBe(seedStaffId(c, 2));
      expect((await get(key, `/api/v1/conversations/${seedConversationId(c, 3)}`)).data.status).toBe('resolved');

      const tickets = await get(key, '/api/v1/support/tickets');
      expect(tickets.data.map((r: { status: string }) => r.status).sort()).toEqual([
        'closed',
        'in_progress',
        'open',
        'resolved',
        'waiting_on_customer',
      ]);
      const ticket = (await get(key, `/api/v1/support/tickets/${seedTicketId(c, 2)}`)).data;
      expect(ticket.messages.map((m: { authorType: string }) => m.authorType)).toEqual(['staff', 'platform']);
      expect(ticket.assignedUser.id).toBe(seedStaffId(c, 1));
      expect((await get(key, '/api/v1/support/users')).data).toHaveLength(3);
    }
  });

  it("answers 404 to the Demo clinic for Harbor's conversations, tickets, users and invitations", async () => {
    const [demo] = keys;
    expect((await t.request(`/api/v1/conversations/${seedConversationId(1, 1)}`, { key: demo })).status).toBe(404);
    expect((await t.request(`/api/v1/support/tickets/${seedTicketId(1, 1)}`, { key: demo })).status).toBe(404);
    expect(
      (await t.request(`/api/v1/team/${seedStaffId(1, 2)}/role`, { key: demo, method: 'PATCH', body: { role: 'admin' } })).status,
    ).toBe(404);
    const harborInvitation = (await get(keys[1]!, '/api/v1/team/members')).data.invitations[0].id;
    expect((await t.request(`/api/v1/team/invitations/${harborInvitation}`, { key: demo, method: 'DELETE' })).status).toBe(404);
  });
});
