import { and, eq, lte, ne, sql } from 'drizzle-orm';
import { clinics, invitations, supportTickets, users } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import type { Database, Transaction } from '../../../platform/db/client';
import { isUniqueViolation } from '../../../platform/db/errors';
import { forClinic } from '../../../platform/db/scoped';
import { conflict, keepingWrites, notFound } from '../../../platform/values/errors';
import { isUuid } from '../../../platform/values/ids';
import { expireStaleInvitations, issueInvitation, toInvitation, UNIQUE_PENDING_INVITATION } from './invitations';
import type { ChangeRoleBody, InviteMemberBody, TeamInvitation, TeamMember, TeamRoster } from './schemas';

const MEMBER = 'Team member';
const INVITATION = 'Invitation';

type UserRow = typeof users.$inferSelect;

const isoOrNull = (d: Date | string | null) => (d ? new Date(d).toISOString() : null);

/** A member from a users row, or from the same fields read as JSON (timestamps as strings). */
export function toMember(
  row: Pick<UserRow, 'id' | 'firstName' | 'lastName' | 'email' | 'role' | 'isActive'> & {
    lastSignInAt: Date | string | null;
    createdAt: Date | string;
  },
): TeamMember {
  return {
    id: row.id,
    firstName: row.firstName,
    lastName: row.lastName,
    email: row.email,
    role: row.role,
    isActive: row.isActive,
    lastSignInAt: isoOrNull(row.lastSignInAt),
    createdAt: new Date(row.createdAt).toISOString(),
  };
}

interface MemberJson {
  id: string;
  firstName: string;
  lastName: string;
  email: string;
  role: UserRow['role'];
  isActive: boolean;
  lastSignInAt: string | null;
  createdAt: string;
}
interface InvitationJson {
  id: string;
  email: string;
  role: string;
  status: TeamInvitation['status'];
  source: string;
  expiresAt: string;
  createdAt: string;
}

/**
 * The roster in one query: every staff user of the clinic (oldest first, on users_clinic_id_created_at_idx)
 * and the pending invitations that have not expired by the request's clock (invitations_clinic_id_created_at_idx).
 */
export async function getRoster(ctx: HandlerContext): Promise<TeamRoster> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  const [row] = await db
    .select({
      members: sql<MemberJson[]>`coalesce((
        select json_agg(json_build_object('id', u."id", 'firstName', u."first_name", 'lastName', u."last_name", 'email', u."email",
          'role', u."role", 'isActive', u."is_active", 'lastSignInAt', u."last_sign_in_at", 'createdAt', u."created_at")
          order by u."created_at", u."id")
        from "users" u where u."clinic_id" = "clinics"."id"), '[]'::json)`,
      invitations: sql<InvitationJson[]>`coalesce((
        select json_agg(json_build_object('id', i."id", 'email', i."email", 'role', i."role", 'status', i."status", 'source', i."source",
          'expiresAt', i."expires_at", 'createdAt', i."created_at")
          order by i."created_at", i."id")
        from "invitations" i where i."clinic_id" = "clinics"."id" and i."status" = 'pending' and i."expires_at" > ${now}), '[]'::json)`,
    })
    .from(clinics)
    .where(eq(clinics.id, clinicId))
    .limit(1);
  return {
    members: (row?.members ?? []).map(toMember),
    invitations: (row?.invitations ?? []).map((i) =>
      toInvitation({ ...i, expiresAt: new Date(i.expiresAt), createdAt: new Date(i.createdAt) }),
    ),
  };
}

const alreadyInvited = (email: string) => conflict('CONFLICT', `A pending invitation for ${email} already exists`);

/**
 * Invites someone by email. In one transaction: pending invitations for that email that have expired
 * are marked expired; an active member with that email or a pending invitation still valid is a 409;
 * otherwise the invitation is written and its email recorded through the messaging interface.
 */
export async function inviteMember(ctx: HandlerContext, body: InviteMemberBody): Promise<TeamInvitation> {
  const { db, messaging, clinicId } = ctx;
  const now = ctx.now();
  try {
    const row = await db.transaction(async (tx) => {
      await expireStaleInvitations(tx, clinicId, body.email, now);
      const [member] = await tx
        .select({ id: users.id })
        .from(users)
        .where(and(eq(users.clinicId, clinicId), eq(users.email, body.email), eq(users.isActive, true)))
        .limit(1);
      if (member) throw conflict('CONFLICT', `${body.email} is already a member of the team`);
      const [pending] = await tx
        .select({ id: invitations.id })
        .from(invitations)
        .where(forClinic(tx, clinicId).where(invitations, eq(invitations.email, body.email), eq(invitations.status, 'pending')))
        .limit(1);
      if (pending) throw alreadyInvited(body.email);
      const [clinic] = await tx.select({ name: clinics.name }).from(clinics).where(eq(clinics.id, clinicId)).limit(1);
      const roleName = body.role === 'admin' ? 'an admin' : 'a member';
      return issueInvitation(
        tx,
        messaging,
        {
          clinicId,
          email: body.email,
          role: body.role,
          source: 'team',
          message: {
            kind: 'invitation',
            subject: `You are invited to join ${clinic!.name}`,
            intro: `You have been invited to join the ${clinic!.name} team as ${roleName}.`,
          },
        },
        now,
      );
    });
    return toInvitation(row);
  } catch (error) {
    // Two invitations for the same email at once: the partial unique index lets one through.
    if (isUniqueViolation(error, UNIQUE_PENDING_INVITATION)) throw alreadyInvited(body.email);
    throw error;
  }
}

/**
 * Cancels a pending invitation that has not expired. Cancelled, accepted and expired ones are a 409
 * (one found pending but past its expiry is marked expired first, then refused the same way).
 */
export async function cancelInvitation(ctx: HandlerContext, invitationId: string): Promise<TeamInvitation> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  if (!isUuid(invitationId)) throw notFound(INVITATION);
  const outcome = await db.transaction(async (tx) => {
    const [current] = await tx
      .select()
      .from(invitations)
      .where(forClinic(tx, clinicId).where(invitations, eq(invitations.id, invitationId)))
      .for('update');
    if (!current) throw notFound(INVITATION);
    if (current.status === 'pending' && current.expiresAt <= now) {
      await tx.update(invitations).set({ status: 'expired' }).where(eq(invitations.id, current.id));
      return { refused: 'expired' as const };
    }
    if (current.status !== 'pending') return { refused: current.status };
    const [cancelled] = await tx
      .update(invitations)
      .set({ status: 'cancelled', cancelledAt: now })
      .where(eq(invitations.id, current.id))
      .returning();
    return { invitation: cancelled! };
  });
  if ('refused' in outcome) {
    const refusal = conflict('CONFLICT', `The invitation is already ${outcome.refused}; only pending invitations can be cancelled`);
    // One found past its expiry was marked expired above: that stands with the refusal.
    throw outcome.refused === 'expired' ? keepingWrites(refusal) : refusal;
  }
  return toInvitation(outcome.invitation);
}

async function lockMember(tx: Transaction, clinicId: string, userId: string): Promise<UserRow> {
  const [user] = await tx
    .select()
    .from(users)
    .where(and(eq(users.clinicId, clinicId), eq(users.id, userId)))
    .for('update');
  if (!user) throw notFound(MEMBER);
  return user;
}

/**
 * Removes a member: isActive false, so sign-in refuses them and their existing tokens stop working
 * (every bearer-token request re-reads the user and requires isActive). Tickets assigned to them that
 * are not closed become unassigned. The owner cannot be removed (409). Removing a removed member
 * changes nothing and answers the same 200.
 */
export async function removeMember(ctx: HandlerContext, userId: string): Promise<TeamMember> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  if (!isUuid(userId)) throw notFound(MEMBER);
  const row = await db.transaction(async (tx) => {
    const user = await lockMember(tx, clinicId, userId);
    if (user.role === 'owner') throw conflict('CONFLICT', 'The clinic owner cannot be removed from the team');
    if (!user.isActive) return user;
    const [updated] = await tx.update(users).set({ isActive: false, updatedAt: now }).where(eq(users.id, user.id)).returning();
    await tx
      .update(supportTickets)
      .set({ assignedUserId: null, updatedAt: now })
      .where(
        forClinic(tx, clinicId).where(supportTickets, eq(supportTickets.assignedUserId, user.id), ne(supportTickets.status, 'closed')),
      );
    return updated!;
  });
  return toMember(row);
}

/** Gives an active member the admin or member role. The owner's role cannot be changed (409), nor a removed member's (409). */
export async function changeRole(ctx: HandlerContext, userId: string, body: ChangeRoleBody): Promise<TeamMember> {
  const { db, clinicId } = ctx;
  const now = ctx.now();
  if (!isUuid(userId)) throw notFound(MEMBER);
  const row = await db.transaction(async (tx) => {
    const user = await lockMember(tx, clinicId, userId);
    if (user.role === 'owner') throw conflict('CONFLICT', "The clinic owner's role cannot be changed");
    if (!user.isActive) throw conflict('CONFLICT', 'This member has been removed from the team; invite them again instead');
    if (user.role === body.role) return user;
    const [updated] = await tx.update(users).set({ role: body.role, updatedAt: now }).where(eq(users.id, user.id)).returning();
    return updated!;
  });
  return toMember(row);
}

/** Sweep: marks every pending invitation past its expiry as expired (reads already leave them out). */
export async function expireInvitations(db: Database, now: Date): Promise<number> {
  const rows = await db
    .update(invitations)
    .set({ status: 'expired' })
    .where(and(eq(invitations.status, 'pending'), lte(invitations.expiresAt, now)))
    .returning({ id: invitations.id });
  return rows.length;
}
