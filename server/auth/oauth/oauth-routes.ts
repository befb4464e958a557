import type { Context } from 'koa';
import { z } from 'zod';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { pageWindow, sendList } from '../../http/paging.js';
import { errorBody, errorResponses } from '../../openapi/error-responses.js';
import { administration, administrationNote } from '../administration.js';
import { requestOrigin } from '../audit/audit-origin.js';
import { actingUser, personCredentials } from '../principal.js';
import type { OAuthApplicationsService } from './oauth-applications-service.js';
import { clientCredentials, type ClientCredentialFields } from './oauth-client-credentials.js';
import { answerOAuth, readOAuthForm } from './oauth-form.js';
import { presentApplication, presentAuthorization } from './oauth-presenter.js';
import {
  applicationCreateBody,
  applicationIdParams,
  applicationList,
  applicationListQuery,
  applicationRecord,
  authorizationList,
  authorizationListQuery,
  authorizationServerMetadata,
  createdApplication,
  oauthErrorBody,
  revocationForm,
  tokenRequestForm,
  tokenResponse,
} from './oauth-schema.js';
import { oauthScopes } from './oauth-scopes.js';
import type { OAuthTokensService } from './oauth-tokens-service.js';
import { tokenEndpointFailureLimit, type CountForClient, type TokenEndpointThrottle } from './token-endpoint-throttle.js';

const tag = 'OAuth';
const userTokenNote = 'Through a personal token, the token needs the `api_keys` scope.';
const throttleNote =
  ` Not counted in the plan's hourly limit: at most ${tokenEndpointFailureLimit} failed requests per client and per client address in 15 minutes, ` +
  'and the X-RateLimit-* headers tell those (a request that succeeds uses none up).';
const oauthErrors = {
  400: {
    description:
      'RFC 6749 §5.2: invalid_request, invalid_grant, unsupported_grant_type, invalid_scope. A body that is no form at all ' +
      '(another content type, too large) is refused before the endpoint with the Error envelope.',
    schema: z.union([oauthErrorBody, errorBody]),
  },
  401: { description: 'invalid_client: unknown client or failed client authentication', schema: oauthErrorBody },
  429: {
    description: `More than ${tokenEndpointFailureLimit} failed requests in 15 minutes from this client address or for this client, whatever the plan`,
    schema: errorBody,
  },
};

export interface OAuthRoutesDependencies {
  applications: OAuthApplicationsService;
  tokens: OAuthTokensService;
  /** The token and revocation endpoints' brute-force limits, in place of the plan's hourly one. */
  throttle: TokenEndpointThrottle;
  /** `server.public_url`, without a trailing slash: the issuer and the origin of the endpoints in the metadata. */
  issuer: string;
  now: () => Date;
}

/** Application registration, the token and revocation endpoints, the server metadata, and the user's authorizations. */
export function oauthRoutes({ applications, tokens, throttle, issuer, now }: OAuthRoutesDependencies): RouteDefinition[] {
  /** The client the request authenticates as; the attempt counts for that client from the moment it is named. */
  const authenticatedClient = (ctx: Context, form: ClientCredentialFields, countForClient: CountForClient) => {
    const credentials = clientCredentials(ctx, form);
    countForClient(credentials.clientId);
    return applications.authenticateClient(credentials);
  };
  return [
    defineRoute({
      method: 'post',
      path: '/v1/oauth/applications',
      operationId: 'createOAuthApplication',
      summary: 'Register an OAuth application; a confidential one gets its client_secret in this answer only',
      description: administrationNote,
      tag,
      auth: administration('write'),
      body: applicationCreateBody,
      responses: { 201: { description: 'The application, with its secret', schema: createdApplication }, ...errorResponses },
      handler: (ctx, { body, principal }) => {
        const { row, clientSecret } = applications.register(requestOrigin(ctx, principal), body, now());
        ctx.status = 201;
        ctx.set('Location', `/v1/oauth/applications/${row.id}`);
        ctx.set('Cache-Control', 'no-store');
        ctx.body = { ...presentApplication(row), ...(clientSecret !== undefined && { client_secret: clientSecret }) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/oauth/applications',
      operationId: 'listOAuthApplications',
      summary: "The organization's OAuth applications, newest first",
      description: administrationNote,
      tag,
      auth: administration('read'),
      query: applicationListQuery,
      responses: { 200: { description: 'A page of applications', schema: applicationList }, ...errorResponses },
      handler: (ctx, { query, principal }) => {
        const window = pageWindow(query);
        const { rows, total } = applications.list(principal.orgId, window.limit, window.offset);
        sendList(ctx, rows.map(presentApplication), total, query);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/oauth/applications/{id}',
      operationId: 'getOAuthApplication',
      summary: 'One OAuth application',
      description: administrationNote,
      tag,
      auth: administration('read'),
      params: applicationIdParams,
      responses: { 200: { description: 'The application', schema: applicationRecord }, ...errorResponses },
      handler: (ctx, { params, principal }) => {
        ctx.body = presentApplication(applications.get(principal.orgId, params.id));
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/oauth/applications/{id}',
      operationId: 'deleteOAuthApplication',
      summary: "Delete an OAuth application: every user's authorization of it and every token it holds end at once",
      description: administrationNote,
      tag,
      auth: administration('write'),
      params: applicationIdParams,
      responses: { 204: { description: 'Deleted' }, ...errorResponses },
      handler: (ctx, { params, principal }) => {
        applications.delete(requestOrigin(ctx, principal), params.id, now());
        ctx.status = 204;
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/oauth/token',
      operationId: 'oauthToken',
      summary: 'The OAuth 2.0 token endpoint: authorization_code (with PKCE) and refresh_token grants',
      description:
        'Form-encoded (RFC 6749 §4.1.3, §6). The client authenticates with HTTP Basic or with client_id and client_secret in the form ' +
        '(a public client sends its client_id only). A code works once, for 60 seconds, for the client, redirect_uri and PKCE challenge it was ' +
        'issued for; a second use revokes every token issued for it. Each refresh token works once: the answer carries its successor, and a ' +
        'reused one revokes its whole family. Access tokens last 3600 s. Errors are RFC 6749 §5.2 bodies, not the Error envelope.' +
        throttleNote,
      tag,
      auth: 'public',
      form: tokenRequestForm,
      ownRateLimit: true,
      responses: { 200: { description: 'RFC 6749 §5.1 (Cache-Control: no-store)', schema: tokenResponse }, ...oauthErrors },
      handler: (ctx) =>
        answerOAuth(ctx, () =>
          throttle.attempt(ctx, now(), (countForClient) => {
            const form = readOAuthForm(ctx, tokenRequestForm);
            const client = authenticatedClient(ctx, form, countForClient);
            if (form.grant_type === 'refresh_token') return tokens.refresh(client, { refreshToken: form.refresh_token, scope: form.scope }, now());
            return tokens.exchangeCode(client, { code: form.code, redirectUri: form.redirect_uri, codeVerifier: form.code_verifier }, now());
          }),
        ),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/oauth/revoke',
      operationId: 'oauthRevoke',
      summary: 'RFC 7009 token revocation: a refresh token revokes its whole family',
      description: `The client authenticates as at the token endpoint. An unknown token, or one issued to another client, is answered 200 too.${throttleNote}`,
      tag,
      auth: 'public',
      form: revocationForm,
      ownRateLimit: true,
      responses: { 200: { description: 'Revoked (or there was nothing to revoke)' }, ...oauthErrors },
      handler: (ctx) =>
        answerOAuth(ctx, () =>
          throttle.attempt(ctx, now(), (countForClient) => {
            const form = readOAuthForm(ctx, revocationForm);
            tokens.revoke(authenticatedClient(ctx, form, countForClient), form.token, now());
          }),
        ),
    }),
    defineRoute({
      method: 'get',
      path: '/.well-known/oauth-authorization-server',
      operationId: 'oauthAuthorizationServerMetadata',
      summary: 'RFC 8414 authorization server metadata',
      tag,
      auth: 'public',
      responses: { 200: { description: 'The metadata', schema: authorizationServerMetadata } },
      handler: (ctx) => {
        ctx.body = {
          issuer,
          authorization_endpoint: `${issuer}/oauth/authorize`,
          token_endpoint: `${issuer}/v1/oauth/token`,
          revocation_endpoint: `${issuer}/v1/oauth/revoke`,
          response_types_supported: ['code'],
          response_modes_supported: ['query'],
          grant_types_supported: ['authorization_code', 'refresh_token'],
          token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
          revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
          code_challenge_methods_supported: ['S256'],
          scopes_supported: oauthScopes,
          authorization_response_iss_parameter_supported: true,
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/user/authorizations',
      operationId: 'listUserAuthorizations',
      summary: 'The OAuth applications the caller has authorized',
      description: userTokenNote,
      tag,
      auth: { scope: 'api_keys', access: 'read', credentials: personCredentials },
      query: authorizationListQuery,
      responses: { 200: { description: 'A page of authorizations', schema: authorizationList }, ...errorResponses },
      handler: (ctx, { query, principal }) => {
        const all = tokens.authorizationsOf(actingUser(principal)!.userId);
        const window = pageWindow(query);
        sendList(ctx, all.slice(window.offset, window.offset + window.limit).map(presentAuthorization), all.length, query);
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/user/authorizations/{id}',
      operationId: 'revokeUserAuthorization',
      summary: "Withdraw an application's authorization: its tokens stop working at once",
      description: userTokenNote,
      tag,
      auth: { scope: 'api_keys', access: 'write', credentials: personCredentials, selfService: true },
      params: applicationIdParams,
      responses: { 204: { description: 'Revoked' }, ...errorResponses },
      handler: (ctx, { params, principal }) => {
        tokens.revokeAuthorization(requestOrigin(ctx, principal), actingUser(principal)!.userId, params.id, now());
        ctx.status = 204;
      },
    }),
  ];
}
