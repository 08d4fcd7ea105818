// Per live demo clinic: team members beside the owner (an admin, a member, a removed one), invitations
// (one pending, one cancelled), conversations with patients (open and resolved, with replies and an
// internal note), and support tickets in every status with their messages. The Sandbox Clinic gets
// none of it: its go-live request is made through the API.
import { and, eq, inArray, sql } from 'drizzle-orm';
import {
  type ConversationStatus,
  conversationMessages,
  conversations,
  invitations,
  type MessageAuthorType,
  type SupportTeam,
  type SupportTicketStatus,
  supportTicketMessages,
  supportTickets,
  type UserRole,
  users,
} from '../../drizzle/schema';
import { hashPassword } from '../../src/platform/auth/password';
import { sha256Hex } from '../../src/platform/crypto/bytes';
import type { Database } from '../../src/platform/db/client';
import { seedPatientId } from './catalog';
import { ORGANIZATION_BLOCKS as B, DEMO_PASSWORD, demoId, LIVE_DEMO_CLINICS } from './ids';
import { refresh } from './upsert';

const DAY = 86_400_000;
const HOUR = 3_600_000;

const DOMAINS = ['demo-clinic.test', 'harbor-clinic.test'] as const;

/** Staff ids: demoId(users, clinicIndex * 10 + n); n 1 admin, 2 member, 3 removed. */
export const seedStaffId = (clinicIndex: number, n: number) => demoId(B.users, clinicIndex * 10 + n);
export const seedConversationId = (clinicIndex: number, n: number) => demoId(B.conversations, clinicIndex * 10 + n);
export const seedTicketId = (clinicIndex: number, n: number) => demoId(B.supportTickets, clinicIndex * 10 + n);

const STAFF: { n: number; local: string; role: UserRole; isActive: boolean; names: [[string, string], [string, string]] }[] = [
  {
    n: 1,
    local: 'admin',
    role: 'admin',
    isActive: true,
    names: [
      ['Ada', 'Morales'],
      ['Hana', 'Brooks'],
    ],
  },
  {
    n: 2,
    local: 'member',
    role: 'member',
    isActive: true,
    names: [
      ['Miles', 'Chen'],
      ['Marco', 'Diaz'],
    ],
  },
  {
    n: 3,
    local: 'former',
    role: 'member',
    isActive: false,
    names: [
      ['Frank', 'Olsen'],
      ['Fiona', 'Gale'],
    ],
  },
];

type Author = 'patient' | 'admin' | 'member' | 'platform';
interface SeedMessage {
  author: Author;
  hoursAgo: number;
  body: string;
  note?: boolean;
}

const CONVERSATIONS: { n: number; patient: number; subject: string; status: ConversationStatus; messages: SeedMessage[] }[] = [
  {
    n: 1,
    patient: 1,
    subject: 'When does my next shipment leave?',
    status: 'open',
    messages: [
      { author: 'patient', hoursAgo: 30, body: 'Hi, my next refill was due yesterday. Has it shipped yet?' },
      { author: 'member', hoursAgo: 28, body: 'Pharmacy says it goes out today; tracking will follow by email.', note: true },
      {
        author: 'admin',
        hoursAgo: 27,
        body: 'Thanks for checking in! Your refill ships today and you will get the tracking link by email.',
      },
      { author: 'patient', hoursAgo: 3, body: 'Got the tracking link, but it still shows label created.' },
    ],
  },
  {
    n: 2,
    patient: 2,
    subject: 'Side effects after the dose increase',
    status: 'open',
    messages: [
      { author: 'patient', hoursAgo: 20, body: 'Since moving up a level I feel nauseous in the mornings. Is that expected?' },
      {
        author: 'admin',
        hoursAgo: 19,
        body: 'Flagged for the provider; do not tell the patient to change the dose ourselves.',
        note: true,
      },
    ],
  },
  {
    n: 3,
    patient: 3,
    subject: 'Change my billing date',
    status: 'resolved',
    messages: [
      { author: 'patient', hoursAgo: 120, body: 'Can my monthly charge move from the 3rd to the 15th?' },
      { author: 'admin', hoursAgo: 118, body: 'Done: from next month you will be charged on the 15th.' },
      { author: 'patient', hoursAgo: 117, body: 'Perfect, thank you!' },
    ],
  },
];

const TICKETS: {
  n: number;
  title: string;
  description: string;
  status: SupportTicketStatus;
  team: SupportTeam;
  assignee: 1 | 2 | null;
  daysAgo: number;
  messages: SeedMessage[];
}[] = [
  {
    n: 1,
    title: 'Webhook deliveries failing since Monday',
    description: 'Our order.shipped endpoint gets no deliveries; the endpoint answers 200 when we test it.',
    status: 'open',
    team: 'technical',
    assignee: null,
    daysAgo: 1,
    messages: [
      { author: 'admin', hoursAgo: 24, body: 'Endpoint URL is the one ending in /hooks/orders. Last delivery we saw was Monday 9:14.' },
    ],
  },
  {
    n: 2,
    title: 'Payout for last week not received',
    description: 'The payout listed as paid on Friday is not in our bank account.',
    status: 'in_progress',
    team: 'billing',
    assignee: 1,
    daysAgo: 4,
    messages: [
      { author: 'admin', hoursAgo: 96, body: 'The payout id is in the dashboard; the amount is the one for the week of the 3rd.' },
      { author: 'platform', hoursAgo: 90, body: 'Thanks, we have asked the processor for the trace number and will update you.' },
    ],
  },
  {
    n: 3,
    title: 'Update our legal business name',
    description: 'We incorporated under a new name and need it on invoices.',
    status: 'waiting_on_customer',
    team: 'support',
    assignee: 2,
    daysAgo: 6,
    messages: [
      { author: 'member', hoursAgo: 140, body: 'New name is on the attached certificate.' },
      { author: 'platform', hoursAgo: 130, body: 'The attachment did not come through; could you send the certificate again?' },
    ],
  },
  {
    n: 4,
    title: 'Custom domain certificate pending',
    description: 'Our shop domain shows a certificate warning.',
    status: 'resolved',
    team: 'technical',
    assignee: 1,
    daysAgo: 14,
    messages: [
      { author: 'admin', hoursAgo: 330, body: 'The CNAME has been in place for two days.' },
      { author: 'platform', hoursAgo: 320, body: 'The certificate is now issued; the warning is gone.' },
    ],
  },
  {
    n: 5,
    title: 'Question about the titration protocol levels',
    description: 'Which level do patients start on when they transfer from another provider?',
    status: 'closed',
    team: 'clinical',
    assignee: null,
    daysAgo: 30,
    messages: [{ author: 'platform', hoursAgo: 700, body: 'Transfers start at the level the provider approves at their first visit.' }],
  },
];

const AUTHOR_TYPE: Record<Author, MessageAuthorType> = { patient: 'patient', admin: 'staff', member: 'staff', platform: 'platform' };

export async function seedTeamAndSupport(db: Database, now: Date): Promise<void> {
  const ago = (ms: number) => new Date(now.getTime() - ms);
  const passwordHash = await hashPassword(DEMO_PASSWORD);

  // Staff. An email a developer has since given to another user stays theirs: that demo user is skipped.
  const staffRows: (typeof users.$inferInsert)[] = LIVE_DEMO_CLINICS.flatMap((clinicId, c) =>
    STAFF.map((s) => ({
      id: seedStaffId(c, s.n),
      clinicId,
      email: `${s.local}@${DOMAINS[c]}`,
      passwordHash,
      firstName: s.names[c]![0],
      lastName: s.names[c]![1],
      role: s.role,
      isActive: s.isActive,
      createdAt: ago((60 - s.n * 10) * DAY),
    })),
  );
  const taken = await db
    .select({ id: users.id, email: users.email })
    .from(users)
    .where(
      inArray(
        users.email,
        staffRows.map((r) => r.email),
      ),
    );
  const freeStaff = staffRows.filter((r) => !taken.some((u) => u.email === r.email && u.id !== r.id));
  const present = new Set(freeStaff.map((r) => r.id!));
  if (freeStaff.length) {
    await db
      .insert(users)
      .values(freeStaff)
      .onConflictDoUpdate({
        target: users.id,
        set: refresh(['passwordHash', 'firstName', 'lastName', 'role', 'isActive']),
      });
  }
  const staff = (c: number, n: number | null) => (n !== null && present.has(seedStaffId(c, n)) ? seedStaffId(c, n) : null);

  for (const [c, clinicId] of LIVE_DEMO_CLINICS.entries()) {
    // Invitations: one pending (valid 5 more days), one cancelled. The pending one is skipped if the
    // clinic has since invited that email itself.
    const pendingEmail = `new.hire@${DOMAINS[c]}`;
    const [otherPending] = await db
      .select({ id: invitations.id })
      .from(invitations)
      .where(
        and(
          eq(invitations.clinicId, clinicId),
          eq(invitations.email, pendingEmail),
          eq(invitations.status, 'pending'),
          sql`${invitations.id} <> ${demoId(B.invitations, c * 10 + 1)}`,
        ),
      )
      .limit(1);
    const invitationRows: (typeof invitations.$inferInsert)[] = [
      {
        id: demoId(B.invitations, c * 10 + 2),
        clinicId,
        email: `contractor@${DOMAINS[c]}`,
        role: 'member',
        status: 'cancelled',
        tokenHash: await sha256Hex(`demo-invitation-${c}-2`),
        source: 'team',
        expiresAt: ago(3 * DAY),
        cancelledAt: ago(8 * DAY),
        createdAt: ago(10 * DAY),
      },
    ];
    if (!otherPending) {
      invitationRows.push({
        id: demoId(B.invitations, c * 10 + 1),
        clinicId,
        email: pendingEmail,
        role: c === 0 ? 'member' : 'admin',
        status: 'pending',
        tokenHash: await sha256Hex(`demo-invitation-${c}-1`),
        source: 'team',
        expiresAt: new Date(now.getTime() + 5 * DAY),
        cancelledAt: null,
        createdAt: ago(2 * DAY),
      });
    }
    await db
      .insert(invitations)
      .values(invitationRows)
      .onConflictDoUpdate({
        target: invitations.id,
        set: refresh(['email', 'role', 'status', 'expiresAt', 'cancelledAt', 'createdAt']),
      });

    const authorUser = (author: Author) => (author === 'admin' ? staff(c, 1) : author === 'member' ? staff(c, 2) : null);

    // Conversations with seeded patients.
    const conversationRows: (typeof conversations.$inferInsert)[] = [];
    const conversationMessageRows: (typeof conversationMessages.$inferInsert)[] = [];
    for (const conv of CONVERSATIONS) {
      const id = seedConversationId(c, conv.n);
      const visible = conv.messages.filter((m) => !m.note);
      const last = visible.at(-1)!;
      conversationRows.push({
        id,
        clinicId,
        patientId: seedPatientId(c, conv.patient),
        subject: conv.subject,
        status: conv.status,
        lastMessageAt: ago(last.hoursAgo * HOUR),
        resolvedAt: conv.status === 'resolved' ? ago((last.hoursAgo - 1) * HOUR) : null,
        createdAt: ago(conv.messages[0]!.hoursAgo * HOUR),
        updatedAt: ago(Math.max(0, last.hoursAgo - 1) * HOUR),
      });
      for (const [k, m] of conv.messages.entries()) {
        conversationMessageRows.push({
          id: demoId(B.conversationMessages, c * 100 + conv.n * 10 + k + 1),
          clinicId,
          conversationId: id,
          authorType: AUTHOR_TYPE[m.author],
          authorUserId: authorUser(m.author),
          body: m.body,
          isInternalNote: m.note ?? false,
          createdAt: ago(m.hoursAgo * HOUR),
        });
      }
    }
    await db
      .insert(conversations)
      .values(conversationRows)
      .onConflictDoUpdate({
        target: conversations.id,
        set: refresh(['patientId', 'subject', 'status', 'lastMessageAt', 'resolvedAt', 'createdAt', 'updatedAt']),
      });
    await db
      .insert(conversationMessages)
      .values(conversationMessageRows)
      .onConflictDoUpdate({
        target: conversationMessages.id,
        set: refresh(['authorType', 'authorUserId', 'body', 'isInternalNote', 'createdAt']),
      });

    // Support tickets in every status.
    const ticketRows: (typeof supportTickets.$inferInsert)[] = [];
    const ticketMessageRows: (typeof supportTicketMessages.$inferInsert)[] = [];
    for (const ticket of TICKETS) {
      const id = seedTicketId(c, ticket.n);
      const last = ticket.messages.at(-1)!;
      ticketRows.push({
        id,
        clinicId,
        title: ticket.title,
        description: ticket.description,
        status: ticket.status,
        assignedTeam: ticket.team,
        assignedUserId: staff(c, ticket.assignee),
        resolvedAt: ticket.status === 'resolved' || ticket.status === 'closed' ? ago((last.hoursAgo - 1) * HOUR) : null,
        createdAt: ago(ticket.daysAgo * DAY),
        updatedAt: ago(Math.max(0, last.hoursAgo - 1) * HOUR),
      });
      for (const [k, m] of ticket.messages.entries()) {
        ticketMessageRows.push({
          id: demoId(B.supportTicketMessages, c * 100 + ticket.n * 10 + k + 1),
          clinicId,
          ticketId: id,
          authorType: AUTHOR_TYPE[m.author],
          authorUserId: authorUser(m.author),
          body: m.body,
          createdAt: ago(m.hoursAgo * HOUR),
        });
      }
    }
    await db
      .insert(supportTickets)
      .values(ticketRows)
      .onConflictDoUpdate({
        target: supportTickets.id,
        set: refresh(['title', 'description', 'status', 'assignedTeam', 'assignedUserId', 'resolvedAt', 'createdAt', 'updatedAt']),
      });
    await db
      .insert(supportTicketMessages)
      .values(ticketMessageRows)
      .onConflictDoUpdate({
        target: supportTicketMessages.id,
        set: refresh(['authorType', 'authorUserId', 'body', 'createdAt']),
      });
  }
}
