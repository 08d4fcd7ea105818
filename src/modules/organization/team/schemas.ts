import { z } from '@hono/zod-openapi';
import { INVITATION_STATUSES, USER_ROLES } from '../../../../drizzle/schema';
import { pathId } from '../../../platform/values/ids';
import { safeString } from '../../../platform/values/strings';

/** The roles an invitation or a role change may give. Ownership is never assigned through the API. */
export const ASSIGNABLE_ROLES = ['admin', 'member'] as const;
export type AssignableRole = (typeof ASSIGNABLE_ROLES)[number];
export const INVITATION_SOURCES = ['team', 'go_live'] as const;

const assignableRole = z
  .enum(ASSIGNABLE_ROLES, { error: 'must be admin or member (ownership cannot be assigned)' })
  .openapi({ description: 'admin or member. owner is refused (400): ownership cannot be assigned.', example: 'member' });

/** An email address as stored: trimmed, lower-cased, at most 254 characters. */
export const emailAddress = () =>
  safeString()
    .trim()
    .toLowerCase()
    .max(254)
    .email('must be a valid email address')
    .openapi({ format: 'email', example: 'new.hire@example.com' });

export const inviteMemberBody = z.object({ email: emailAddress(), role: assignableRole }).strict().openapi('InviteTeamMemberRequest');
export type InviteMemberBody = z.infer<typeof inviteMemberBody>;

export const changeRoleBody = z.object({ role: assignableRole }).strict().openapi('ChangeTeamMemberRoleRequest');
export type ChangeRoleBody = z.infer<typeof changeRoleBody>;

export const userIdParam = z.object({ userId: pathId('userId') });
export const invitationIdParam = z.object({ invitationId: pathId('invitationId') });

export const teamMember = z
  .object({
    id: z.string().uuid(),
    firstName: z.string(),
    lastName: z.string(),
    email: z.string(),
    role: z.enum(USER_ROLES),
    isActive: z.boolean().openapi({ description: 'false: removed from the team; they cannot sign in.' }),
    lastSignInAt: z.string().datetime().nullable(),
    createdAt: z.string().datetime(),
  })
  .openapi('TeamMember');
export type TeamMember = z.infer<typeof teamMember>;

export const teamInvitation = z
  .object({
    id: z.string().uuid(),
    email: z.string(),
    role: z.enum(ASSIGNABLE_ROLES),
    status: z.enum(INVITATION_STATUSES).openapi({ description: 'pending, accepted, cancelled or expired.' }),
    source: z
      .enum(INVITATION_SOURCES)
      .openapi({ description: 'team: POST /team/invite; go_live: the signer invited by POST /sandbox/go-live.' }),
    expiresAt: z.string().datetime().openapi({ description: '7 days after it was sent.' }),
    createdAt: z.string().datetime(),
  })
  .openapi('TeamInvitation');
export type TeamInvitation = z.infer<typeof teamInvitation>;

export const teamRoster = z
  .object({
    members: z
      .array(teamMember)
      .openapi({ description: 'Every staff user of the clinic (removed ones with isActive false), oldest first.' }),
    invitations: z.array(teamInvitation).openapi({ description: 'Pending invitations that have not expired, oldest first.' }),
  })
  .openapi('TeamRoster');
export type TeamRoster = z.infer<typeof teamRoster>;
