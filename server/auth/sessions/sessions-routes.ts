import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { pageWindow, sendList } from '../../http/paging.js';
import { errorResponses } from '../../openapi/error-responses.js';
import { requestOrigin } from '../audit/audit-origin.js';
import { actingUser, personCredentials } from '../principal.js';
import { presentSession } from './session-presenter.js';
import type { SessionCookie } from './session-cookie.js';
import type { LocateAddress } from './session-location.js';
import { sessionIdParams, sessionList, sessionListQuery } from './sessions-schema.js';
import type { SessionsService } from './sessions-service.js';

const tag = 'Sessions';
const tokenNote = 'Through a personal token, the token needs the `api_keys` scope.';

export function sessionsRoutes(sessions: SessionsService, cookie: SessionCookie, locate: LocateAddress, now: () => Date): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/sessions',
      operationId: 'listSessions',
      summary: "The caller's own live browser sessions, oldest first",
      description: `Device, browser and OS come from each session's User-Agent, the location from its address (\`geoip.database\`); \`current\` marks the session making the request. ${tokenNote}`,
      tag,
      auth: { scope: 'api_keys', access: 'read', credentials: personCredentials },
      query: sessionListQuery,
      responses: { 200: { description: 'A page of sessions', schema: sessionList }, ...errorResponses },
      handler: (ctx, { query, principal }) => {
        const all = sessions.list(principal.orgId, actingUser(principal)!.userId, now());
        const window = pageWindow(query);
        const page = all.slice(window.offset, window.offset + window.limit);
        sendList(ctx, page.map((session) => presentSession(session, principal.credential.id, locate)), all.length, query);
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/sessions/{id}',
      operationId: 'revokeSession',
      summary: "End one of the caller's sessions (another user's is 404)",
      description: `Ending the current session signs it out and clears its cookie. ${tokenNote}`,
      tag,
      auth: { scope: 'api_keys', access: 'write', credentials: personCredentials, selfService: true },
      params: sessionIdParams,
      responses: { 204: { description: 'Ended' }, ...errorResponses },
      handler: (ctx, { params, principal }) => {
        sessions.revoke(requestOrigin(ctx, principal), actingUser(principal)!.userId, params.id, now());
        if (params.id === principal.credential.id) ctx.append('Set-Cookie', cookie.clear());
        ctx.status = 204;
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/sessions/revoke-others',
      operationId: 'revokeOtherSessions',
      summary: "End every session of the caller but the current one (through a personal token: every session)",
      description: tokenNote,
      tag,
      auth: { scope: 'api_keys', access: 'write', credentials: personCredentials, selfService: true },
      responses: { 204: { description: 'Ended' }, ...errorResponses },
      handler: (ctx, { principal }) => {
        const keep = principal.credential.kind === 'session' ? principal.credential.id : null;
        sessions.revokeOthers(requestOrigin(ctx, principal), actingUser(principal)!.userId, keep, now());
        ctx.status = 204;
      },
    }),
  ];
}
