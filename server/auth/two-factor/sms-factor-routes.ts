import { requestClient } from '../../http/request-client.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { errorBody, errorResponses } from '../../openapi/error-responses.js';
import { actingUser, personCredentials } from '../principal.js';
import type { ProfileService } from '../users/profile-service.js';
import { factorOwnerOf } from './factor-owner.js';
import type { SmsFactor } from './sms-factor.js';
import { codeBody, phoneBody, smsConfirmation, smsSent } from './two-factor-schema.js';

const tag = 'Two-factor authentication';
/** The caller's own account, as for the authenticator app. */
const ownFactors = { scope: 'api_keys', access: 'write', credentials: personCredentials, selfService: true } as const;
const note =
  'SMS is a restricted authenticator (NIST SP 800-63B): a number can be ported or its messages redirected, so an authenticator app is the better first factor. ' +
  'A browser session, or a personal token with write permission and the `api_keys` scope.';
const notSent = {
  409: { description: '`already_enabled`, `no_enrollment` or `sms_not_configured` (the server has no sms.sender)', schema: errorBody },
  503: { description: '`sms_not_sent`: the SMS provider did not take the message', schema: errorBody },
};

export function smsFactorRoutes(sms: SmsFactor, profile: ProfileService, now: () => Date): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/user/two-factor/sms',
      operationId: 'startSmsEnrollment',
      summary: 'Start setting up SMS codes: sends a 6-digit code (valid 10 minutes) to the number',
      description: `The number counts once POST /v1/user/two-factor/sms/verify confirms the code. Starting again (another number, or a new code) replaces the pending one. At most 5 messages an hour per user and per number (429). ${note}`,
      tag,
      auth: ownFactors,
      body: phoneBody,
      responses: { 200: { description: 'The code was sent', schema: smsSent }, ...errorResponses, ...notSent },
      handler: async (ctx, { body, principal }) => {
        const sent = await sms.start(profile.get(principal.orgId, actingUser(principal)!.userId), body.phone, now());
        ctx.set('Cache-Control', 'no-store');
        ctx.body = { phone_ending: sent.phoneEnding, expires_at: sent.expiresAt.toISOString() };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/user/two-factor/sms/verify',
      operationId: 'verifySmsEnrollment',
      summary: 'Finish setting up SMS codes with the code sent',
      description: `A wrong, expired or used code is 400 \`invalid_code\`; 5 wrong codes end it (send a new one). Ends the user's other sessions. ${note}`,
      tag,
      auth: ownFactors,
      body: codeBody,
      responses: { 200: { description: 'SMS is a second factor now', schema: smsConfirmation }, ...errorResponses, 409: notSent[409] },
      handler: (ctx, { body, principal }) => {
        const owner = factorOwnerOf(principal, profile.get(principal.orgId, actingUser(principal)!.userId), requestClient(ctx));
        ctx.set('Cache-Control', 'no-store');
        ctx.body = { recovery_codes: sms.confirm(owner, body.code, now()) };
      },
    }),
  ];
}
