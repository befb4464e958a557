import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { pageWindow, sendList } from '../../http/paging.js';
import { errorResponses } from '../../openapi/error-responses.js';
import type { AuditLog } from './audit-log.js';
import { presentAuditEntry } from './audit-presenter.js';
import { auditEntryList, auditLogQuery } from './audit-schema.js';

const utc = (time: string | undefined) => (time === undefined ? null : new Date(time).toISOString());

export function auditRoutes(audit: AuditLog): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/audit-log',
      operationId: 'listAuditLog',
      summary: "The organization's audit log, newest first",
      description:
        'Sign-ins and failed sign-ins, session revocations, API keys created and revoked, user, role, organization and settings changes, ' +
        'and requests refused by the IP allowlist (at most one entry per user or service account in 10 minutes; `details.unrecorded` ' +
        'counts the refusals left out before it). Entries are kept 400 days. Owners and admins, through any credential of theirs ' +
        '(a personal token needs the `api_keys` scope).',
      tag: 'Audit log',
      auth: { access: 'read', roles: ['owner', 'admin'], scope: 'api_keys' },
      query: auditLogQuery,
      responses: { 200: { description: 'A page of entries', schema: auditEntryList }, ...errorResponses },
      handler: (ctx, { query, principal }) => {
        const window = pageWindow(query);
        const filter = { org_id: principal.orgId, actor: query.actor ?? null, action: query.action ?? null, from: utc(query.from), to: utc(query.to) };
        const { rows, total } = audit.list(filter, window.limit, window.offset);
        ctx.set('Cache-Control', 'no-store');
        sendList(ctx, rows.map(presentAuditEntry), total, query);
      },
    }),
  ];
}
