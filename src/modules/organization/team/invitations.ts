import { and, eq, lte } from 'drizzle-orm';
import { invitations } from '../../../../drizzle/schema';
import { randomBytes, sha256Hex, toBase64Url } from '../../../platform/crypto/bytes';
import type { Queryable } from '../../../platform/db/client';
import type { MessageSender } from '../../../platform/providers/messaging/types';
import type { AssignableRole, TeamInvitation } from './schemas';

/** Invitations are valid for 7 days (the spec leaves it open; docs/team.md). */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Where the brand portal accepts an invitation; the token travels in the fragment, so it never reaches
 * a server log. (No portal URL is configured in this service yet; docs/team.md.)
 */
export const INVITATION_ACCEPT_URL = 'https://portal.example.com/invitations/accept';

export const UNIQUE_PENDING_INVITATION = 'invitations_clinic_id_email_pending_key';

type InvitationRow = typeof invitations.$inferSelect;

const iso = (d: Date) => d.toISOString();

export function toInvitation(
  row: Pick<InvitationRow, 'id' | 'email' | 'role' | 'status' | 'source' | 'expiresAt' | 'createdAt'>,
): TeamInvitation {
  return {
    id: row.id,
    email: row.email,
    role: row.role as AssignableRole,
    status: row.status,
    source: row.source as TeamInvitation['source'],
    expiresAt: iso(row.expiresAt),
    createdAt: iso(row.createdAt),
  };
}

/**
 * Pending invitations past their expiry become `expired` (here, when an invitation for the same email
 * is about to be written, and in the expireInvitations sweep). Reads never write: they leave expired
 * pending rows out by comparing expiresAt with the request's clock.
 */
export async function expireStaleInvitations(db: Queryable, clinicId: string, email: string, now: Date): Promise<void> {
  await db
    .update(invitations)
    .set({ status: 'expired' })
    .where(
      and(
        eq(invitations.clinicId, clinicId),
        eq(invitations.email, email),
        eq(invitations.status, 'pending'),
        lte(invitations.expiresAt, now),
      ),
    );
}

export interface InvitationEmail {
  /** invitation (POST /team/invite) or go_live_invitation (POST /sandbox/go-live). */
  kind: 'invitation' | 'go_live_invitation';
  subject: string;
  /** The text before the link; the link and its expiry are added. */
  intro: string;
}

/**
 * Writes a pending invitation (a random token, only its SHA-256 stored) and sends the email with the
 * accept link through `messaging`, both through `tx`: call it inside the transaction of the change.
 * A second pending invitation for the same email in the clinic is refused by the partial unique index
 * (UNIQUE_PENDING_INVITATION), which the caller turns into its answer.
 */
export async function issueInvitation(
  tx: Queryable,
  messaging: MessageSender,
  input: { clinicId: string; email: string; role: AssignableRole; source: 'team' | 'go_live'; message: InvitationEmail },
  now: Date,
): Promise<InvitationRow> {
  const token = toBase64Url(randomBytes(32));
  const expiresAt = new Date(now.getTime() + INVITATION_TTL_MS);
  const [row] = await tx
    .insert(invitations)
    .values({
      clinicId: input.clinicId,
      email: input.email,
      role: input.role,
      status: 'pending',
      tokenHash: await sha256Hex(token),
      invitedByUserId: null,
      source: input.source,
      expiresAt,
      createdAt: now,
    })
    .returning();
  const link = `${INVITATION_ACCEPT_URL}#token=${token}`;
  await messaging.send(
    tx,
    {
      clinicId: input.clinicId,
      channel: 'email',
      kind: input.message.kind,
      to: input.email,
      subject: input.message.subject,
      body: `${input.message.intro}\n\nAccept the invitation: ${link}\n\nThe link is valid until ${expiresAt.toUTCString()}.`,
    },
    now,
  );
  return row!;
}
