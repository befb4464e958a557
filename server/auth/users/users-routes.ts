import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { pageWindow, sendList } from '../../http/paging.js';
import { errorBody, errorResponses } from '../../openapi/error-responses.js';
import { administration, administrationNote } from '../administration.js';
import { requestOrigin } from '../audit/audit-origin.js';
import { actingUser } from '../principal.js';
import type { InvitationsService, SentLink } from './invitations-service.js';
import { userRecord } from './profile-schema.js';
import { presentUser } from './user-presenter.js';
import type { UsersService } from './users-service.js';
import { invitationLink, invitedUser, userChangeBody, userCreateBody, userIdParams, userList, userListQuery } from './users-schema.js';

const tag = 'Users';
const ownerRules = 'Only owners make, change, disable or remove owners (403 otherwise), and the last active owner can be neither demoted, disabled nor removed (409 `last_owner`).';

function presentLink(link: SentLink) {
  return { url: link.url, expires_at: link.expiresAt, email_sent: link.emailSent };
}

export function usersRoutes(users: UsersService, invitations: InvitationsService, now: () => Date): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/users',
      operationId: 'listUsers',
      summary: "The organization's users, oldest first",
      description: administrationNote,
      tag,
      auth: administration('read'),
      query: userListQuery,
      responses: { 200: { description: 'A page of users', schema: userList }, ...errorResponses },
      handler: (ctx, { query, principal }) => {
        const window = pageWindow(query);
        const { rows, total } = users.list(principal.orgId, window.limit, window.offset);
        sendList(ctx, rows.map(presentUser), total, query);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/users',
      operationId: 'inviteUser',
      summary: 'Invite a user: an invited account and a one-time link to set a name and password',
      description:
        'The link (`{auth_url}/invitations/{token}`, valid 7 days, usable once) is in this response only, and is mailed to the invitee when ' +
        `SMTP is configured. An email already used by any account is 409 \`already_exists\`. Only owners invite owners. ${administrationNote}`,
      tag,
      auth: administration('write'),
      body: userCreateBody,
      responses: {
        201: { description: 'The invited user, with the link', schema: invitedUser },
        ...errorResponses,
        409: { description: '`already_exists`: an account has this email', schema: errorBody },
      },
      handler: async (ctx, { body, principal }) => {
        const { user, invitation } = await invitations.invite(actingUser(principal)!, principal.orgId, body, now());
        ctx.status = 201;
        ctx.set('Location', `/v1/users/${user.id}`);
        ctx.set('Cache-Control', 'no-store');
        ctx.body = { ...presentUser(user), invitation: presentLink(invitation) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/users/{id}',
      operationId: 'getUser',
      summary: 'One user of the organization',
      description: administrationNote,
      tag,
      auth: administration('read'),
      params: userIdParams,
      responses: { 200: { description: 'The user', schema: userRecord }, ...errorResponses },
      handler: (ctx, { params, principal }) => {
        ctx.body = presentUser(users.get(principal.orgId, params.id));
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/users/{id}',
      operationId: 'updateUser',
      summary: "Change a user's name, role or status",
      description:
        "A role change takes effect at the user's next request, with a new session id. Disabling ends the user's sessions, revokes their " +
        `personal tokens and cancels their pending links. ${ownerRules} ${administrationNote}`,
      tag,
      auth: administration('write'),
      params: userIdParams,
      body: userChangeBody,
      responses: {
        200: { description: 'The user', schema: userRecord },
        ...errorResponses,
        409: { description: '`last_owner`: the organization would have no active owner', schema: errorBody },
      },
      handler: (ctx, { params, body, principal }) => {
        ctx.body = presentUser(users.update(actingUser(principal)!, requestOrigin(ctx, principal), params.id, body, now()));
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/users/{id}',
      operationId: 'deleteUser',
      summary: 'Remove a user, with their sessions, personal tokens (and keys made through them) and links',
      description: `${ownerRules} ${administrationNote}`,
      tag,
      auth: administration('write'),
      params: userIdParams,
      responses: {
        204: { description: 'Removed' },
        ...errorResponses,
        409: { description: '`last_owner`: the organization would have no active owner', schema: errorBody },
      },
      handler: (ctx, { params, principal }) => {
        users.remove(actingUser(principal)!, requestOrigin(ctx, principal), params.id, now());
        ctx.status = 204;
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/users/{id}/invitation',
      operationId: 'renewInvitation',
      summary: 'A new invitation link for a user who has not accepted yet; the previous link stops working',
      description: `Shown this once, mailed when SMTP is configured. ${administrationNote}`,
      tag,
      auth: administration('write'),
      params: userIdParams,
      responses: {
        200: { description: 'The new link', schema: invitationLink },
        ...errorResponses,
        409: { description: '`not_invited`: the user is active or disabled', schema: errorBody },
      },
      handler: async (ctx, { params, principal }) => {
        const link = await invitations.renew(actingUser(principal)!, principal.orgId, params.id, now());
        ctx.set('Cache-Control', 'no-store');
        ctx.body = presentLink(link);
      },
    }),
  ];
}
