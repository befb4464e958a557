import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { pageWindow, sendList } from '../../http/paging.js';
import { errorBody, errorResponses } from '../../openapi/error-responses.js';
import { administration, administrationNote } from '../administration.js';
import { requestOrigin } from '../audit/audit-origin.js';
import { actingUser, personCredentials } from '../principal.js';
import { presentIdentity, presentProvider } from './identity-providers-presenter.js';
import {
  identityIdParams,
  identityList,
  identityListQuery,
  providerList,
  providerParams,
  providerRecord,
  providerSettingsBody,
  providerTestResult,
} from './identity-providers-schema.js';
import type { IdentityProvidersService } from './identity-providers-service.js';
import type { UserIdentitiesService } from './user-identities-service.js';

const tag = 'Sign-in providers';
const userTokenNote = 'Through a personal token, the token needs the `api_keys` scope.';

/** The organization's sign-in providers (admins) and the caller's linked identities. */
export function identityProvidersRoutes(providers: IdentityProvidersService, identities: UserIdentitiesService, now: () => Date): RouteDefinition[] {
  const present = (row: Parameters<typeof presentProvider>[0]) => presentProvider(row, providers.callbackUrl(row.org_id, row.provider));
  return [
    defineRoute({
      method: 'get',
      path: '/v1/org/identity-providers',
      operationId: 'listIdentityProviders',
      summary: 'The sign-in providers the organization set up (GitHub, Google, Microsoft, GitLab)',
      description: administrationNote,
      tag,
      auth: administration('read'),
      responses: { 200: { description: 'Every provider set up, enabled or not', schema: providerList }, ...errorResponses },
      handler: (ctx, { principal }) => {
        ctx.body = { data: providers.list(principal.orgId).map(present) };
      },
    }),
    defineRoute({
      method: 'put',
      path: '/v1/org/identity-providers/{provider}',
      operationId: 'saveIdentityProvider',
      summary: 'Set up or change a sign-in provider',
      description: `${administrationNote} The client secret is sealed at rest and never returned; register \`callback_url\` at the provider.`,
      tag,
      auth: administration('write'),
      params: providerParams,
      body: providerSettingsBody,
      responses: { 200: { description: 'The settings as saved', schema: providerRecord }, ...errorResponses },
      handler: (ctx, { params, body, principal }) => {
        ctx.body = present(providers.save(requestOrigin(ctx, principal), params.provider, body, now()));
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/org/identity-providers/{provider}',
      operationId: 'deleteIdentityProvider',
      summary: 'Remove a sign-in provider: nobody signs in with it any more (linked identities stay, for when it comes back)',
      description: administrationNote,
      tag,
      auth: administration('write'),
      params: providerParams,
      responses: { 204: { description: 'Removed' }, ...errorResponses },
      handler: (ctx, { params, principal }) => {
        providers.delete(requestOrigin(ctx, principal), params.provider, now());
        ctx.status = 204;
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/org/identity-providers/{provider}/test',
      operationId: 'testIdentityProvider',
      summary: 'Check the saved settings against the provider: reachable, and the client id and secret accepted',
      description: `${administrationNote} Nobody signs in: the provider's token endpoint is offered a code that cannot be valid, and its refusal tells a wrong client apart from a right one.`,
      tag,
      auth: administration('write'),
      params: providerParams,
      responses: { 200: { description: 'The outcome', schema: providerTestResult }, ...errorResponses },
      handler: async (ctx, { params, principal }) => {
        ctx.body = await providers.test(principal.orgId, params.provider);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/user/identities',
      operationId: 'listUserIdentities',
      summary: 'The provider accounts the caller signs in with',
      description: userTokenNote,
      tag,
      auth: { scope: 'api_keys', access: 'read', credentials: personCredentials },
      query: identityListQuery,
      responses: { 200: { description: 'A page of identities', schema: identityList }, ...errorResponses },
      handler: (ctx, { query, principal }) => {
        const all = identities.of(actingUser(principal)!.userId);
        const window = pageWindow(query);
        sendList(ctx, all.slice(window.offset, window.offset + window.limit).map(presentIdentity), all.length, query);
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/user/identities/{id}',
      operationId: 'unlinkUserIdentity',
      summary: 'Unlink a provider account; refused (409 last_sign_in_method) when it is the last way to sign in',
      description: userTokenNote,
      tag,
      auth: { scope: 'api_keys', access: 'write', credentials: personCredentials, selfService: true },
      params: identityIdParams,
      responses: {
        204: { description: 'Unlinked' },
        409: { description: '`last_sign_in_method`: the caller has no password and no other identity', schema: errorBody },
        ...errorResponses,
      },
      handler: (ctx, { params, principal }) => {
        identities.unlink(requestOrigin(ctx, principal), actingUser(principal)!.userId, params.id, now());
        ctx.status = 204;
      },
    }),
  ];
}
