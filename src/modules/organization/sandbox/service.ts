import { and, eq, gt, sql } from 'drizzle-orm';
import { clinics, goLiveRequests, invitations, onboarding, users } from '../../../../drizzle/schema';
import type { HandlerContext } from '../../../platform/context';
import type { Transaction } from '../../../platform/db/client';
import type { MessageSender } from '../../../platform/providers/messaging/types';
import { conflict } from '../../../platform/values/errors';
import { expireStaleInvitations, issueInvitation } from '../team/invitations';
import type { GoLiveBody, GoLiveStatus } from './schemas';

/** The brand portal's onboarding page, for a signer who is already a member (no invitation to accept). */
const ONBOARDING_PORTAL_URL = 'https://portal.example.com/onboarding';

/**
 * Sends the signer their invitation to join as admin (source go_live), in the same transaction.
 * A signer who is already an active member of the clinic gets the email with the onboarding link
 * and no invitation. Returns the invitation id, or null.
 */
async function inviteSigner(
  tx: Transaction,
  messaging: MessageSender,
  clinicId: string,
  clinicName: string,
  body: GoLiveBody,
  now: Date,
): Promise<string | null> {
  const intro =
    `${body.signerFirstName} ${body.signerLastName}, ${clinicName} has asked to go live. As its signer you complete onboarding: ` +
    'business details, an identity check, the agreement, and choosing and paying for a plan. When onboarding completes the clinic becomes live.';
  const [member] = await tx
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.clinicId, clinicId), eq(users.email, body.signerEmail), eq(users.isActive, true)))
    .limit(1);
  if (member) {
    await messaging.send(
      tx,
      {
        clinicId,
        channel: 'email',
        kind: 'go_live_invitation',
        to: body.signerEmail,
        subject: `Take ${clinicName} live`,
        body: `${intro}\n\nContinue onboarding: ${ONBOARDING_PORTAL_URL}`,
      },
      now,
    );
    return null;
  }
  // A pending invitation for the signer (a team invitation, or an earlier go-live one) gives way to this one.
  await expireStaleInvitations(tx, clinicId, body.signerEmail, now);
  await tx
    .update(invitations)
    .set({ status: 'cancelled', cancelledAt: now })
    .where(and(eq(invitations.clinicId, clinicId), eq(invitations.email, body.signerEmail), eq(invitations.status, 'pending')));
  const invitation = await issueInvitation(
    tx,
    messaging,
    {
      clinicId,
      email: body.signerEmail,
      role: 'admin',
      source: 'go_live',
      message: { kind: 'go_live_invitation', subject: `Take ${clinicName} live: you are invited as admin`, intro },
    },
    now,
  );
  return invitation.id;
}

/** Whether the invitation of a pending request can still be accepted (or was). */
async function invitationUsable(tx: Transaction, invitationId: string | null, now: Date): Promise<boolean> {
  if (!invitationId) return true; // the signer was already a member
  const [row] = await tx
    .select({ id: invitations.id })
    .from(invitations)
    .where(
      and(
        eq(invitations.id, invitationId),
        sql`(${invitations.status} = 'accepted' or (${invitations.status} = 'pending' and ${gt(invitations.expiresAt, now)}))`,
      ),
    )
    .limit(1);
  return Boolean(row);
}

/**
 * Records the go-live request of a sandbox clinic, in one transaction: the go_live_requests row (at
 * most one 'requested' per clinic: the partial unique index, written first with ON CONFLICT DO NOTHING
 * so concurrent requests wait for each other), the onboarding row if missing (signer fields filled
 * where empty), clinics.goLiveRequestedAt, and the signer's invitation as admin with its email.
 *
 * A request while one is pending answers the same (the pending request's signer) without a second
 * invitation; only if that request's invitation has expired or was cancelled is a fresh one sent.
 * A clinic that is already live is a 409.
 */
export async function requestGoLive(ctx: HandlerContext, body: GoLiveBody): Promise<GoLiveStatus> {
  const { db, messaging, clinicId } = ctx;
  const now = ctx.now();
  return db.transaction(async (tx) => {
    const [clinic] = await tx.select({ name: clinics.name, mode: clinics.mode }).from(clinics).where(eq(clinics.id, clinicId)).limit(1);
    if (clinic?.mode !== 'sandbox') throw conflict('CONFLICT', 'The clinic is already live');

    const [created] = await tx
      .insert(goLiveRequests)
      .values({
        clinicId,
        signerFirstName: body.signerFirstName,
        signerLastName: body.signerLastName,
        signerEmail: body.signerEmail,
        status: 'requested',
        createdAt: now,
      })
      .onConflictDoNothing()
      .returning({ id: goLiveRequests.id });

    if (!created) {
      const [pending] = await tx
        .select()
        .from(goLiveRequests)
        .where(and(eq(goLiveRequests.clinicId, clinicId), eq(goLiveRequests.status, 'requested')))
        .for('update')
        .limit(1);
      if (!pending) throw conflict('CONFLICT', 'The go-live request changed meanwhile; send it again');
      if (!(await invitationUsable(tx, pending.invitationId, now))) {
        const signer = {
          signerFirstName: pending.signerFirstName,
          signerLastName: pending.signerLastName,
          signerEmail: pending.signerEmail,
        };
        const invitationId = await inviteSigner(tx, messaging, clinicId, clinic.name, signer, now);
        await tx.update(goLiveRequests).set({ invitationId }).where(eq(goLiveRequests.id, pending.id));
      }
      return { status: 'requested' as const, signerEmail: pending.signerEmail };
    }

    const invitationId = await inviteSigner(tx, messaging, clinicId, clinic.name, body, now);
    await tx.update(goLiveRequests).set({ invitationId }).where(eq(goLiveRequests.id, created.id));
    await tx
      .insert(onboarding)
      .values({
        clinicId,
        signerFirstName: body.signerFirstName,
        signerLastName: body.signerLastName,
        signerEmail: body.signerEmail,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoUpdate({
        target: onboarding.clinicId,
        set: {
          signerFirstName: sql`coalesce(${onboarding.signerFirstName}, excluded.signer_first_name)`,
          signerLastName: sql`coalesce(${onboarding.signerLastName}, excluded.signer_last_name)`,
          signerEmail: sql`coalesce(${onboarding.signerEmail}, excluded.signer_email)`,
          updatedAt: now,
        },
      });
    await tx.update(clinics).set({ goLiveRequestedAt: now, updatedAt: now }).where(eq(clinics.id, clinicId));
    return { status: 'requested' as const, signerEmail: body.signerEmail };
  });
}
