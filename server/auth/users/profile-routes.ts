import { requestClient } from '../../http/request-client.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { errorResponses } from '../../openapi/error-responses.js';
import { actingUser, personCredentials, type Principal } from '../principal.js';
import type { SessionsService } from '../sessions/sessions-service.js';
import { currentUserRecord, profileChangeBody } from './profile-schema.js';
import type { ProfileService } from './profile-service.js';
import { presentUser } from './user-presenter.js';

export function profileRoutes(profile: ProfileService, sessions: SessionsService, now: () => Date): RouteDefinition[] {
  const present = (principal: Principal, userId: string) => {
    const csrfToken = principal.credential.kind === 'session' ? sessions.csrfToken(principal.credential.id) : undefined;
    return { ...presentUser(profile.get(principal.orgId, userId)), ...(csrfToken !== undefined && { csrf_token: csrfToken }) };
  };
  return [
    defineRoute({
      method: 'get',
      path: '/v1/user',
      operationId: 'getCurrentUser',
      summary: "The caller's own profile (sessions and personal tokens)",
      description: 'Through a browser session it carries `csrf_token`, the value of the X-CSRF-Token header that requests changing anything need.',
      tag: 'Users',
      auth: { access: 'read', credentials: personCredentials },
      responses: { 200: { description: 'The profile', schema: currentUserRecord }, ...errorResponses },
      handler: (ctx, { principal }) => {
        ctx.set('Cache-Control', 'no-store');
        ctx.body = present(principal, actingUser(principal)!.userId);
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/user',
      operationId: 'updateCurrentUser',
      summary: "Change the caller's name or password",
      description:
        'A new password needs `current_password`; wrong ones count against the sign-in limits (10 per account and per address in 15 minutes, then 429). ' +
        'It is refused with 400 `password_too_common` when it is in a list of commonly used passwords or is the email address. ' +
        'Changing it ends every other session of the user. Any role may change its own profile; a personal token needs write permission and the `api_keys` scope.',
      tag: 'Users',
      auth: { scope: 'api_keys', access: 'write', credentials: personCredentials, selfService: true },
      body: profileChangeBody,
      responses: { 200: { description: 'The profile', schema: currentUserRecord }, ...errorResponses },
      handler: async (ctx, { body, principal }) => {
        const userId = actingUser(principal)!.userId;
        await profile.update(principal, userId, body, requestClient(ctx), now());
        ctx.set('Cache-Control', 'no-store');
        ctx.body = present(principal, userId);
      },
    }),
  ];
}
