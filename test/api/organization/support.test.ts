import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { conversationMessages, conversations, patients, supportTicketMessages, supportTickets } from '../../../drizzle/schema';
import { useTestApp } from '../../helpers/app';
import { makeKey, makeTenant, makeUser } from '../../helpers/factories';
import { countStatements } from '../../helpers/statements';

const t = useTestApp();
const MINUTE = 60_000;

async function tenant() {
  const tenant = await makeTenant(t.db);
  const readOnly = await makeKey(t.db, tenant.clinic.id, { scopes: ['read'] });
  return { ...tenant, readKey: readOnly.raw };
}

const statements = (send: () => Promise<{ status: number }>) => countStatements(t, send);

async function makePatient(clinicId: string) {
  const [row] = await t.db
    .insert(patients)
    .values({
      clinicId,
      firstName: 'Pat',
      lastName: 'Ient',
      email: `p-${randomUUID().slice(0, 8)}@example.test`,
      phoneNumber: '+15550001111',
    })
    .returning();
  return row!;
}

/** A conversation with a patient message, a staff reply and an internal note. */
async function makeConversation(clinicId: string, values: Partial<typeof conversations.$inferInsert> = {}) {
  const patient = await makePatient(clinicId);
  const staff = await makeUser(t.db, clinicId, { role: 'member' });
  const base = Date.now() - 60 * MINUTE;
  const [conversation] = await t.db
    .insert(conversations)
    .values({ clinicId, patientId: patient.id, subject: 'Shipping question', lastMessageAt: new Date(base + 2 * MINUTE), ...values })
    .returning();
  await t.db.insert(conversationMessages).values([
    { clinicId, conversationId: conversation!.id, authorType: 'patient', body: 'Where is my order?', createdAt: new Date(base) },
    {
      clinicId,
      conversationId: conversation!.id,
      authorType: 'staff',
      authorUserId: staff.id,
      body: 'It ships tomorrow.',
      createdAt: new Date(base + 2 * MINUTE),
    },
    {
      clinicId,
      conversationId: conversation!.id,
      authorType: 'staff',
      authorUserId: staff.id,
      body: 'Checked with the pharmacy.',
      isInternalNote: true,
      createdAt: new Date(base + 3 * MINUTE),
    },
  ]);
  return { conversation: conversation!, patient, staff };
}

async function makeTicket(clinicId: string, values: Partial<typeof supportTickets.$inferInsert> = {}) {
  const [row] = await t.db
    .insert(supportTickets)
    .values({ clinicId, title: 'Payout missing', description: 'Where is it?', ...values })
    .returning();
  return row!;
}

async function sameNotFound(send: (id: string) => Promise<{ status: number; json(): Promise<unknown> }>, foreignId: string) {
  const bodies = [];
  for (const id of [foreignId, randomUUID(), 'not-a-uuid']) {
    const res = await send(id);
    expect(res.status, id).toBe(404);
    bodies.push(await res.json());
  }
  expect(bodies[0]).toEqual(bodies[1]);
  expect(bodies[1]).toEqual(bodies[2]);
}

describe('GET /api/v1/conversations/{id}', () => {
  it('answers the conversation with every message in order, internal notes flagged, no patient contact details, in one query', async () => {
    const { clinic, readKey } = await tenant();
    const { conversation, patient, staff } = await makeConversation(clinic.id);
    const res = await t.request(`/api/v1/conversations/${conversation.id}`, { key: readKey });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data).toMatchObject({
      id: conversation.id,
      subject: 'Shipping question',
      status: 'open',
      resolvedAt: null,
      patient: { id: patient.id, firstName: 'Pat', lastName: 'Ient' },
    });
    expect(
      data.messages.map((m: { message: string; authorType: string; isInternalNote: boolean; authorName: string | null }) => [
        m.authorType,
        m.message,
        m.isInternalNote,
        m.authorName,
      ]),
    ).toEqual([
      ['patient', 'Where is my order?', false, 'Pat Ient'],
      ['staff', 'It ships tomorrow.', false, 'Test User'],
      ['staff', 'Checked with the pharmacy.', true, 'Test User'],
    ]);
    expect(data.messages[1].authorUserId).toBe(staff.id);
    const text = JSON.stringify(data);
    expect(text).not.toContain(patient.email);
    expect(text).not.toContain('+15550001111');
    expect(await statements(() => t.request(`/api/v1/conversations/${conversation.id}`, { key: readKey }))).toEqual({
      status: 200,
      count: 2,
    });
  });

  it("answers the same 404 for another clinic's, an unknown and a malformed id", async () => {
    const { key } = await tenant();
    const other = await tenant();
    const { conversation } = await makeConversation(other.clinic.id);
    await sameNotFound((id) => t.request(`/api/v1/conversations/${id}`, { key }), conversation.id);
  });
});

describe('POST /api/v1/conversations/{id}/messages', () => {
  const post = (key: string, id: string, body: unknown) => t.request(`/api/v1/conversations/${id}/messages`, { key, body });

  it('adds a reply as api_key (201) and an internal note; a reply reopens a resolved conversation, a note does not', async () => {
    const { clinic, key } = await tenant();
    const { conversation } = await makeConversation(clinic.id, { status: 'resolved', resolvedAt: new Date() });

    const note = await post(key, conversation.id, { message: 'Patient called again', isInternalNote: true });
    expect(note.status).toBe(201);
    expect((await note.json()).data).toMatchObject({
      authorType: 'api_key',
      authorUserId: null,
      isInternalNote: true,
      conversationStatus: 'resolved',
    });
    let [row] = await t.db.select().from(conversations).where(eq(conversations.id, conversation.id));
    expect(row!.status).toBe('resolved');

    const reply = await post(key, conversation.id, { message: '  Your order shipped.\nTracking follows.  ' });
    expect(reply.status).toBe(201);
    const { data } = await reply.json();
    expect(data).toMatchObject({
      conversationId: conversation.id,
      conversationStatus: 'open',
      authorType: 'api_key',
      authorName: null,
      message: 'Your order shipped.\nTracking follows.',
      isInternalNote: false,
    });
    [row] = await t.db.select().from(conversations).where(eq(conversations.id, conversation.id));
    expect(row).toMatchObject({ status: 'open', resolvedAt: null });
    expect(row!.lastMessageAt!.toISOString()).toBe(data.createdAt);

    const read = await (await t.request(`/api/v1/conversations/${conversation.id}`, { key })).json();
    expect(read.data.messages).toHaveLength(5);
    expect(read.data.messages.at(-1)).toMatchObject({ id: data.id, authorType: 'api_key' });
  });

  it('refuses bad input (400) and unknown or foreign conversations (404)', async () => {
    const { clinic, key, readKey } = await tenant();
    const { conversation } = await makeConversation(clinic.id);
    for (const body of [
      {},
      { message: '' },
      { message: '   ' },
      { message: 'x'.repeat(10_001) },
      { message: 'a\u0000' },
      { message: 'ok', isInternalNote: 'yes' },
      { message: 'ok', extra: 1 },
    ]) {
      const res = await post(key, conversation.id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await res.json()).message).toContain('body');
    }
    expect((await post(readKey, conversation.id, { message: 'hi' })).status).toBe(403);
    const other = await tenant();
    const theirs = await makeConversation(other.clinic.id);
    await sameNotFound((id) => post(key, id, { message: 'hi' }), theirs.conversation.id);
    expect(await t.db.$count(conversationMessages, eq(conversationMessages.conversationId, theirs.conversation.id))).toBe(3);
  });
});

describe('POST /api/v1/conversations/{id}/resolve', () => {
  it('resolves an open conversation; resolving again answers the same 200 and keeps resolvedAt', async () => {
    const { clinic, key } = await tenant();
    const { conversation } = await makeConversation(clinic.id);
    const res = await t.request(`/api/v1/conversations/${conversation.id}/resolve`, { key, method: 'POST' });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data).toMatchObject({ id: conversation.id, status: 'resolved' });
    expect(data.resolvedAt).not.toBeNull();
    expect(data.messages).toHaveLength(3);

    t.clock.advance(MINUTE);
    const again = await t.request(`/api/v1/conversations/${conversation.id}/resolve`, { key, method: 'POST' });
    expect(again.status).toBe(200);
    expect((await again.json()).data.resolvedAt).toBe(data.resolvedAt);
  });

  it("answers the same 404 for another clinic's, an unknown and a malformed id, and leaves theirs open", async () => {
    const { key } = await tenant();
    const other = await tenant();
    const { conversation } = await makeConversation(other.clinic.id);
    await sameNotFound((id) => t.request(`/api/v1/conversations/${id}/resolve`, { key, method: 'POST' }), conversation.id);
    const [row] = await t.db.select().from(conversations).where(eq(conversations.id, conversation.id));
    expect(row!.status).toBe('open');
  });
});

describe('support tickets', () => {
  it("lists the clinic's tickets newest first with totals, filters by status, in one query", async () => {
    const { clinic, readKey } = await tenant();
    const staff = await makeUser(t.db, clinic.id, { role: 'admin' });
    const now = Date.now();
    const a = await makeTicket(clinic.id, { title: 'Oldest', createdAt: new Date(now - 3 * MINUTE) });
    const b = await makeTicket(clinic.id, {
      title: 'Middle',
      status: 'in_progress',
      assignedUserId: staff.id,
      createdAt: new Date(now - 2 * MINUTE),
    });
    const c = await makeTicket(clinic.id, { title: 'Newest', status: 'closed', createdAt: new Date(now - MINUTE) });
    await t.db.insert(supportTicketMessages).values([
      {
        clinicId: clinic.id,
        ticketId: b.id,
        authorType: 'staff',
        authorUserId: staff.id,
        body: 'Any news?',
        createdAt: new Date(now - 90_000),
      },
      { clinicId: clinic.id, ticketId: b.id, authorType: 'platform', body: 'Looking into it.', createdAt: new Date(now - 60_000) },
    ]);
    const other = await tenant();
    await makeTicket(other.clinic.id);

    const res = await t.request('/api/v1/support/tickets?limit=2', { key: readKey });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.pagination).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2 });
    expect(body.data.map((r: { id: string }) => r.id)).toEqual([c.id, b.id]);
    expect(body.data[1]).toMatchObject({
      title: 'Middle',
      status: 'in_progress',
      assignedTeam: 'support',
      messageCount: 2,
      assignedUser: { id: staff.id, firstName: 'Test', lastName: 'User' },
      lastMessageAt: new Date(now - 60_000).toISOString(),
    });
    const page2 = await (await t.request('/api/v1/support/tickets?limit=2&page=2', { key: readKey })).json();
    expect(page2.data.map((r: { id: string }) => r.id)).toEqual([a.id]);
    const past = await (await t.request('/api/v1/support/tickets?page=9', { key: readKey })).json();
    expect(past).toMatchObject({ data: [], pagination: { total: 3 } });

    const filtered = await (await t.request('/api/v1/support/tickets?status=in_progress', { key: readKey })).json();
    expect(filtered.data.map((r: { id: string }) => r.id)).toEqual([b.id]);
    expect(filtered.pagination.total).toBe(1);
    expect((await t.request('/api/v1/support/tickets?status=pending', { key: readKey })).status).toBe(400);
    expect(await statements(() => t.request('/api/v1/support/tickets', { key: readKey }))).toEqual({ status: 200, count: 2 });
  });

  it('answers a ticket with its messages (authors named), in one query; 404 alike for foreign, unknown, malformed ids', async () => {
    const { clinic, readKey } = await tenant();
    const staff = await makeUser(t.db, clinic.id, { role: 'admin' });
    const ticket = await makeTicket(clinic.id, { assignedTeam: 'billing' });
    const now = Date.now();
    await t.db.insert(supportTicketMessages).values([
      {
        clinicId: clinic.id,
        ticketId: ticket.id,
        authorType: 'staff',
        authorUserId: staff.id,
        body: 'Payout missing',
        createdAt: new Date(now - 2_000),
      },
      { clinicId: clinic.id, ticketId: ticket.id, authorType: 'platform', body: 'We are on it', createdAt: new Date(now - 1_000) },
    ]);
    const res = await t.request(`/api/v1/support/tickets/${ticket.id}`, { key: readKey });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data).toMatchObject({ id: ticket.id, assignedTeam: 'billing', status: 'open', messageCount: 2, assignedUser: null });
    expect(
      data.messages.map((m: { authorType: string; authorName: string | null; message: string }) => [m.authorType, m.authorName, m.message]),
    ).toEqual([
      ['staff', 'Test User', 'Payout missing'],
      ['platform', null, 'We are on it'],
    ]);
    expect(await statements(() => t.request(`/api/v1/support/tickets/${ticket.id}`, { key: readKey }))).toEqual({ status: 200, count: 2 });

    const other = await tenant();
    const theirs = await makeTicket(other.clinic.id);
    await sameNotFound((id) => t.request(`/api/v1/support/tickets/${id}`, { key: readKey }), theirs.id);
  });

  it('creates a ticket (an addition, 201) and validates it', async () => {
    const { key } = await tenant();
    const res = await t.request('/api/v1/support/tickets', {
      key,
      body: { title: ' Refund stuck ', description: 'Order 1001\nrefund pending' },
    });
    expect(res.status).toBe(201);
    const { data } = await res.json();
    expect(data).toMatchObject({ title: 'Refund stuck', status: 'open', assignedTeam: 'support', messages: [], messageCount: 0 });
    expect((await t.request(`/api/v1/support/tickets/${data.id}`, { key })).status).toBe(200);
    for (const body of [
      { title: 'x' },
      { title: '', description: 'd' },
      { title: 't', description: 'd', assignedTeam: 'sales' },
      { title: 't', description: 'd', status: 'open' },
    ]) {
      expect((await t.request('/api/v1/support/tickets', { key, body })).status, JSON.stringify(body)).toBe(400);
    }
  });

  describe('POST /api/v1/support/tickets/{id}/messages', () => {
    const post = (key: string, id: string, body: unknown) => t.request(`/api/v1/support/tickets/${id}/messages`, { key, body });

    it('adds the message (201) and moves waiting_on_customer to in_progress and resolved back to open', async () => {
      const { clinic, key } = await tenant();
      const waiting = await makeTicket(clinic.id, { status: 'waiting_on_customer' });
      const res = await post(key, waiting.id, { message: 'Here are the details' });
      expect(res.status).toBe(201);
      expect((await res.json()).data).toMatchObject({
        ticketId: waiting.id,
        ticketStatus: 'in_progress',
        authorType: 'api_key',
        message: 'Here are the details',
      });
      const resolved = await makeTicket(clinic.id, { status: 'resolved', resolvedAt: new Date() });
      expect((await (await post(key, resolved.id, { message: 'Still broken' })).json()).data.ticketStatus).toBe('open');
      const [row] = await t.db.select().from(supportTickets).where(eq(supportTickets.id, resolved.id));
      expect(row).toMatchObject({ status: 'open', resolvedAt: null });
      const open = await makeTicket(clinic.id, { status: 'in_progress' });
      expect((await (await post(key, open.id, { message: 'ping' })).json()).data.ticketStatus).toBe('in_progress');
      const detail = await (await t.request(`/api/v1/support/tickets/${waiting.id}`, { key })).json();
      expect(detail.data.messages.map((m: { message: string }) => m.message)).toEqual(['Here are the details']);
    });

    it('refuses a closed ticket (409), bad input (400), foreign ids (404)', async () => {
      const { clinic, key } = await tenant();
      const closed = await makeTicket(clinic.id, { status: 'closed' });
      const res = await post(key, closed.id, { message: 'hello?' });
      expect(res.status).toBe(409);
      expect((await res.json()).code).toBe('CONFLICT');
      expect(await t.db.$count(supportTicketMessages, eq(supportTicketMessages.ticketId, closed.id))).toBe(0);
      const open = await makeTicket(clinic.id);
      for (const body of [{}, { message: '' }, { message: 'x', isInternalNote: true }]) {
        expect((await post(key, open.id, body)).status, JSON.stringify(body)).toBe(400);
      }
      const other = await tenant();
      const theirs = await makeTicket(other.clinic.id);
      await sameNotFound((id) => post(key, id, { message: 'hi' }), theirs.id);
    });
  });

  describe('PUT /api/v1/support/tickets/{id}', () => {
    const put = (key: string, id: string, body: unknown) => t.request(`/api/v1/support/tickets/${id}`, { key, method: 'PUT', body });

    it('updates only the fields sent; resolved sets resolvedAt, leaving it clears it; closed is final (409)', async () => {
      const { clinic, key } = await tenant();
      const staff = await makeUser(t.db, clinic.id, { role: 'member' });
      const ticket = await makeTicket(clinic.id);
      let res = await put(key, ticket.id, {
        title: 'Payout of March missing',
        assignedTeam: 'billing',
        status: 'in_progress',
        assignedUserId: staff.id,
      });
      expect(res.status).toBe(200);
      expect((await res.json()).data).toMatchObject({
        title: 'Payout of March missing',
        description: 'Where is it?',
        assignedTeam: 'billing',
        status: 'in_progress',
        assignedUser: { id: staff.id },
        resolvedAt: null,
      });
      res = await put(key, ticket.id, { status: 'resolved' });
      const resolved = (await res.json()).data;
      expect(resolved.resolvedAt).not.toBeNull();
      res = await put(key, ticket.id, { status: 'open', assignedUserId: null });
      expect((await res.json()).data).toMatchObject({ status: 'open', resolvedAt: null, assignedUser: null });
      res = await put(key, ticket.id, { status: 'closed' });
      expect((await res.json()).data.status).toBe('closed');
      const refused = await put(key, ticket.id, { status: 'open' });
      expect(refused.status).toBe(409);
      expect((await refused.json()).message).toContain('closed');
      expect((await put(key, ticket.id, { title: 'New title' })).status).toBe(409);
    });

    it('validates status, team, assigned user and fields (400)', async () => {
      const { clinic, key } = await tenant();
      const ticket = await makeTicket(clinic.id);
      const removed = await makeUser(t.db, clinic.id, { role: 'member', isActive: false });
      const other = await tenant();
      const cases: [unknown, string][] = [
        [{}, 'body'],
        [{ status: 'pending' }, 'body.status: must be one of open, in_progress, waiting_on_customer, resolved, closed'],
        [{ assignedTeam: 'sales' }, 'body.assignedTeam: must be one of support, billing, technical, clinical'],
        [{ title: '' }, 'body.title'],
        [{ title: 'x'.repeat(201) }, 'body.title'],
        [{ description: 'x'.repeat(10_001) }, 'body.description'],
        [{ assignedUserId: 'nope' }, 'body.assignedUserId'],
        [{ assignedUserId: removed.id }, 'body.assignedUserId: must be an active staff user of the clinic'],
        [{ assignedUserId: other.owner.id }, 'body.assignedUserId: must be an active staff user of the clinic'],
        [{ assignedUserId: randomUUID() }, 'body.assignedUserId: must be an active staff user of the clinic'],
        [{ status: 'open', extra: 1 }, 'body'],
      ];
      for (const [body, message] of cases) {
        const res = await put(key, ticket.id, body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect((await res.json()).message, JSON.stringify(body)).toContain(message);
      }
      const [row] = await t.db.select().from(supportTickets).where(eq(supportTickets.id, ticket.id));
      expect(row).toMatchObject({ status: 'open', assignedUserId: null, title: 'Payout missing' });
    });

    it("answers the same 404 for another clinic's, an unknown and a malformed id", async () => {
      const { key } = await tenant();
      const other = await tenant();
      const theirs = await makeTicket(other.clinic.id);
      await sameNotFound((id) => put(key, id, { status: 'closed' }), theirs.id);
      const [row] = await t.db.select().from(supportTickets).where(eq(supportTickets.id, theirs.id));
      expect(row!.status).toBe('open');
    });
  });

  it('GET /api/v1/support/users lists the active staff of the clinic only', async () => {
    const { clinic, owner, readKey } = await tenant();
    const admin = await makeUser(t.db, clinic.id, { role: 'admin' });
    await makeUser(t.db, clinic.id, { role: 'member', isActive: false });
    const other = await tenant();
    await makeUser(t.db, other.clinic.id, { role: 'admin' });
    const res = await t.request('/api/v1/support/users', { key: readKey });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data.map((u: { id: string }) => u.id).sort()).toEqual([owner.id, admin.id].sort());
    expect(data.find((u: { id: string }) => u.id === admin.id)).toEqual({
      id: admin.id,
      firstName: 'Test',
      lastName: 'User',
      email: admin.email,
      role: 'admin',
    });
  });
});
