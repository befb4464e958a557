import { z } from 'zod';
import { pagingQuery, paginationSchema } from '../../http/paging.js';
import { oauthScopes } from './oauth-scopes.js';
import { redirectUriProblem } from './redirect-uri.js';

const scopeList = z
  .array(z.enum(oauthScopes))
  .min(1)
  .refine((list) => new Set(list).size === list.length, 'scopes must not repeat');

export const applicationCreateBody = z
  .strictObject({
    name: z.string().trim().min(1).max(100).describe('Shown to users on the consent page'),
    redirect_uris: z
      .array(
        z.string().superRefine((uri, ctx) => {
          const problem = redirectUriProblem(uri);
          if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
        }),
      )
      .min(1)
      .max(10)
      .describe('Exact redirect URIs (https, or http on a loopback address): the authorization endpoint compares them as strings, so each is written as its canonical form'),
    confidential: z
      .boolean()
      .default(true)
      .describe('A confidential client (a server) gets a client_secret; a public one (native or browser application) has none and must use PKCE'),
    scopes: scopeList.optional().describe('The scopes users may grant it (the key scopes but `agent`). Default: all but `agent` and `api_keys`'),
  })
  .meta({ id: 'OAuthApplicationCreate' });

export const applicationRecord = z
  .object({
    id: z.string().describe('app_...'),
    name: z.string(),
    redirect_uris: z.array(z.string()),
    confidential: z.boolean(),
    scopes: z.array(z.enum(oauthScopes)),
    client_id: z.string(),
    created_at: z.string(),
  })
  .meta({ id: 'OAuthApplication' });

export const createdApplication = applicationRecord
  .extend({ client_secret: z.string().optional().describe('dbm_ocs_...: confidential clients only, shown this once; only its hash is stored') })
  .meta({ id: 'CreatedOAuthApplication' });

export const applicationList = z.object({ data: z.array(applicationRecord), pagination: paginationSchema() }).meta({ id: 'OAuthApplicationList' });
export const applicationListQuery = z.strictObject(pagingQuery);
export const applicationIdParams = z.object({ id: z.string() });

export const authorizationRecord = z
  .object({
    id: z.string().describe('authz_...'),
    application: z.object({ name: z.string(), client_id: z.string(), organization: z.string().describe("The application owner's organization") }),
    scopes: z.array(z.enum(oauthScopes)),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'OAuthAuthorization' });

export const authorizationList = z.object({ data: z.array(authorizationRecord), pagination: paginationSchema() }).meta({ id: 'OAuthAuthorizationList' });
export const authorizationListQuery = z.strictObject(pagingQuery);

/** The token endpoint's form (RFC 6749 §4.1.3, §6; RFC 7636 §4.5): parsed by the endpoint itself, whose faults are RFC 6749 §5.2 errors. */
export const tokenRequestForm = z
  .object({
    grant_type: z.enum(['authorization_code', 'refresh_token']),
    code: z.string().optional().describe('authorization_code: the code from the redirect'),
    redirect_uri: z.string().optional().describe('authorization_code: the redirect_uri of the authorization request, exactly'),
    code_verifier: z.string().optional().describe('authorization_code: the PKCE verifier, when the request had a code_challenge'),
    refresh_token: z.string().optional().describe('refresh_token: the latest refresh token (each is used once; a reused one revokes its family)'),
    scope: z.string().optional().describe('refresh_token: fewer scopes than granted; never more'),
    client_id: z.string().optional().describe('Unless sent with HTTP Basic'),
    client_secret: z.string().optional().describe('Confidential clients, unless sent with HTTP Basic'),
  })
  .meta({ id: 'OAuthTokenRequest' });

export const tokenResponse = z
  .object({
    access_token: z.string().describe('dbm_oat_...: `Authorization: Bearer` on /v1'),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int().describe('Seconds: 3600'),
    refresh_token: z.string().describe('dbm_ort_...: valid 30 days, used once'),
    scope: z.string().describe('The granted scopes, space-separated'),
  })
  .meta({ id: 'OAuthTokenResponse' });

export const revocationForm = z
  .object({
    token: z.string(),
    token_type_hint: z.enum(['access_token', 'refresh_token']).optional(),
    client_id: z.string().optional(),
    client_secret: z.string().optional(),
  })
  .meta({ id: 'OAuthRevocationRequest' });

export const oauthErrorBody = z
  .object({
    error: z.enum(['invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope', 'unsupported_token_type']),
    error_description: z.string().optional(),
  })
  .meta({ id: 'OAuthError', description: 'RFC 6749 §5.2: the token and revocation endpoints answer errors in this form, not the Error envelope' });

export const authorizationServerMetadata = z
  .object({
    issuer: z.string(),
    authorization_endpoint: z.string(),
    token_endpoint: z.string(),
    revocation_endpoint: z.string(),
    response_types_supported: z.array(z.string()),
    response_modes_supported: z.array(z.string()),
    grant_types_supported: z.array(z.string()),
    token_endpoint_auth_methods_supported: z.array(z.string()),
    revocation_endpoint_auth_methods_supported: z.array(z.string()),
    code_challenge_methods_supported: z.array(z.string()),
    scopes_supported: z.array(z.string()),
    authorization_response_iss_parameter_supported: z.boolean(),
  })
  .meta({ id: 'OAuthAuthorizationServerMetadata' });
