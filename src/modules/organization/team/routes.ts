import { OpenAPIHono } from '@hono/zod-openapi';
import { type AppEnv, handlerContext } from '../../../platform/context';
import { errorBody, jsonBody, jsonContent, ok, successBody } from '../../../platform/http/envelope';
import { defineRoute } from '../../../platform/http/route';
import { changeRoleBody, invitationIdParam, inviteMemberBody, teamInvitation, teamMember, teamRoster, userIdParam } from './schemas';
import { cancelInvitation, changeRole, getRoster, inviteMember, removeMember } from './service';

const tags = ['Team'];
const read = { auth: 'key', scope: 'read' } as const;
const write = { auth: 'key', scope: 'write' } as const;
const ownerProtected = (what: string) => jsonContent(errorBody, `CONFLICT: ${what}`);

const members = defineRoute(read, {
  method: 'get',
  path: '/api/v1/team/members',
  operationId: 'listTeamMembers',
  tags,
  summary: 'The staff roster and the pending invitations',
  responses: { 200: jsonContent(successBody(teamRoster), 'Members (removed ones with isActive false) and pending, unexpired invitations') },
});

const invite = defineRoute(write, {
  method: 'post',
  path: '/api/v1/team/invite',
  operationId: 'inviteTeamMember',
  recordedValues: ['role'],
  tags,
  summary: 'Invite someone to the team as admin or member (an email with a link valid for 7 days)',
  request: { body: jsonBody(inviteMemberBody) },
  responses: {
    201: jsonContent(successBody(teamInvitation), 'Invitation sent'),
    409: jsonContent(errorBody, 'CONFLICT: the email already has a pending invitation, or belongs to an active member'),
  },
});

const cancel = defineRoute(write, {
  method: 'delete',
  path: '/api/v1/team/invitations/{invitationId}',
  operationId: 'cancelTeamInvitation',
  tags,
  summary: 'Cancel a pending invitation',
  description:
    'The path overlaps PATCH /team/{userId}/role (the specification has both): DELETE /team/invitations/role cancels the invitation "role" (404). ' +
    'The methods differ, so no request matches both (docs/api-conventions.md, "Overlapping paths").',
  'x-path-overlap': {
    path: '/api/v1/team/{userId}/role',
    methods: ['patch'],
    note: 'The same URL can match both paths; the methods differ, so a request reaches exactly one operation.',
  },
  request: { params: invitationIdParam },
  responses: {
    200: jsonContent(successBody(teamInvitation), 'Cancelled'),
    409: jsonContent(errorBody, 'CONFLICT: the invitation is already cancelled, accepted or expired'),
  },
});

const remove = defineRoute(write, {
  method: 'delete',
  path: '/api/v1/team/{userId}',
  operationId: 'removeTeamMember',
  tags,
  summary: 'Remove a member from the team (deactivates their sign-in)',
  request: { params: userIdParam },
  responses: {
    200: jsonContent(successBody(teamMember), 'Removed (isActive false); removing a removed member answers the same'),
    409: ownerProtected('the owner cannot be removed'),
  },
});

const role = defineRoute(write, {
  method: 'patch',
  path: '/api/v1/team/{userId}/role',
  operationId: 'changeTeamMemberRole',
  recordedValues: ['role'],
  tags,
  summary: "Change a member's role to admin or member (ownership cannot be assigned)",
  description:
    'The path overlaps DELETE /team/invitations/{invitationId} (the specification has both): PATCH /team/invitations/role changes the role of the member "invitations" (404). ' +
    'The methods differ, so no request matches both (docs/api-conventions.md, "Overlapping paths").',
  'x-path-overlap': {
    path: '/api/v1/team/invitations/{invitationId}',
    methods: ['delete'],
    note: 'The same URL can match both paths; the methods differ, so a request reaches exactly one operation.',
  },
  request: { params: userIdParam, body: jsonBody(changeRoleBody) },
  responses: {
    200: jsonContent(successBody(teamMember), 'The member with the new role'),
    409: ownerProtected("the owner's role cannot be changed, nor a removed member's"),
  },
});

export const teamRoutes = new OpenAPIHono<AppEnv>()
  .openapi(members, async (c) => {
    return c.json(ok(await getRoster(handlerContext(c))), 200);
  })
  .openapi(invite, async (c) => {
    const invitation = await inviteMember(handlerContext(c), c.req.valid('json'));
    return c.json(ok(invitation, 'Invitation sent'), 201);
  })
  .openapi(cancel, async (c) => {
    const invitation = await cancelInvitation(handlerContext(c), c.req.valid('param').invitationId);
    return c.json(ok(invitation, 'Invitation cancelled'), 200);
  })
  .openapi(remove, async (c) => {
    const member = await removeMember(handlerContext(c), c.req.valid('param').userId);
    return c.json(ok(member, 'Member removed'), 200);
  })
  .openapi(role, async (c) => {
    const member = await changeRole(handlerContext(c), c.req.valid('param').userId, c.req.valid('json'));
    return c.json(ok(member, 'Role changed'), 200);
  });
