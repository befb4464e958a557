import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { errorBody, errorResponses } from '../../openapi/error-responses.js';
import { requestOrigin } from '../audit/audit-origin.js';
import type { Organization } from '../identity/organization.js';
import { administration, administrationNote } from '../administration.js';
import { organizationChangeBody, organizationRecord, organizationSettingsChangeBody, organizationSettingsRecord } from './organization-schema.js';
import type { OrganizationSettingsService } from './organization-settings-service.js';

const tag = 'Organization';

function presentOrganization(organization: Organization) {
  return { id: organization.id, name: organization.name, slug: organization.slug, plan: organization.plan, created_at: organization.created_at };
}

export function organizationRoutes(organizations: OrganizationSettingsService, now: () => Date): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/org',
      operationId: 'getOrganization',
      summary: "The caller's organization",
      tag,
      auth: { access: 'read' },
      responses: { 200: { description: 'The organization', schema: organizationRecord }, ...errorResponses },
      handler: (ctx, { principal }) => {
        ctx.body = presentOrganization(organizations.organization(principal.orgId));
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/org',
      operationId: 'updateOrganization',
      summary: "Rename the organization or change its slug",
      description: `A new name without a slug also gives the slug made from it. ${administrationNote}`,
      tag,
      auth: administration('write'),
      body: organizationChangeBody,
      responses: {
        200: { description: 'The organization', schema: organizationRecord },
        ...errorResponses,
        409: { description: '`already_exists`: another organization has the name or slug', schema: errorBody },
      },
      handler: (ctx, { body, principal }) => {
        ctx.body = presentOrganization(organizations.rename(requestOrigin(ctx, principal), body, now()));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/org/settings',
      operationId: 'getOrganizationSettings',
      summary: "The organization's session, two-factor, network and optimization settings",
      description: administrationNote,
      tag,
      auth: administration('read'),
      responses: { 200: { description: 'The settings', schema: organizationSettingsRecord }, ...errorResponses },
      handler: (ctx, { principal }) => {
        ctx.body = organizations.settings(principal.orgId);
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/org/settings',
      operationId: 'updateOrganizationSettings',
      summary: "Change some of the organization's settings",
      description:
        'Session settings apply to existing sessions from their next request. A non-empty `ip_allowlist` needs the enterprise plan ' +
        `(403 \`plan_required\`) and must include the caller's own address (409 \`would_lock_out\`). ${administrationNote}`,
      tag,
      auth: administration('write'),
      body: organizationSettingsChangeBody,
      responses: {
        200: { description: 'The settings', schema: organizationSettingsRecord },
        ...errorResponses,
        409: { description: "`would_lock_out`: the allowlist leaves out the caller's own address", schema: errorBody },
      },
      handler: (ctx, { body, principal }) => {
        ctx.body = organizations.update(requestOrigin(ctx, principal), body, now());
      },
    }),
  ];
}
