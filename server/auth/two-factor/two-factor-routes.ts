import { requestClient } from '../../http/request-client.js';
import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { errorBody, errorResponses } from '../../openapi/error-responses.js';
import { administration, administrationNote } from '../administration.js';
import { requestOrigin } from '../audit/audit-origin.js';
import { actingUser, personCredentials, type Principal } from '../principal.js';
import type { ProfileService } from '../users/profile-service.js';
import { requireMayManage } from '../users/ownership-rules.js';
import { userIdParams } from '../users/users-schema.js';
import type { Context } from 'koa';
import { factorOwnerOf } from './factor-owner.js';
import { codeBody, methodParams, reauthenticationBody, recoveryCodes, totpEnrollment } from './two-factor-schema.js';
import type { FactorOwner, TwoFactorService } from './two-factor-service.js';

const tag = 'Two-factor authentication';
/** The caller's own account: a session, or a personal token with write permission and the `api_keys` scope. */
const ownFactors = { scope: 'api_keys', access: 'write', credentials: personCredentials, selfService: true } as const;
const ownFactorsNote = 'A browser session, or a personal token with write permission and the `api_keys` scope.';

export function twoFactorRoutes(twoFactor: TwoFactorService, profile: ProfileService, now: () => Date): RouteDefinition[] {
  const owner = (ctx: Context, principal: Principal): FactorOwner =>
    factorOwnerOf(principal, profile.get(principal.orgId, actingUser(principal)!.userId), requestClient(ctx));
  return [
    defineRoute({
      method: 'post',
      path: '/v1/user/two-factor/totp',
      operationId: 'startTotpEnrollment',
      summary: 'Start setting up an authenticator app (TOTP, RFC 6238: 30 s, 6 digits, a 160-bit secret)',
      description: `Answers the secret, its \`otpauth://\` URI and that URI as a QR code; it counts once POST /v1/user/two-factor/totp/verify confirms a code. Starting again replaces a secret not yet confirmed; with an app already set up, 409 \`already_enabled\`. ${ownFactorsNote}`,
      tag,
      auth: ownFactors,
      responses: {
        200: { description: 'The secret to enroll', schema: totpEnrollment },
        ...errorResponses,
        409: { description: '`already_enabled`', schema: errorBody },
      },
      handler: async (ctx, { principal }) => {
        ctx.set('Cache-Control', 'no-store');
        const enrollment = await twoFactor.startTotp(owner(ctx, principal).user, now());
        ctx.body = {
          secret: enrollment.secret,
          otpauth_uri: enrollment.otpauthUri,
          qr_code: `data:image/svg+xml;base64,${Buffer.from(enrollment.qrSvg).toString('base64')}`,
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/user/two-factor/totp/verify',
      operationId: 'verifyTotpEnrollment',
      summary: 'Finish setting up the authenticator app with a code it shows; answers 10 recovery codes, shown once',
      description: `A wrong code is 400 \`invalid_code\`. Ends the user's other sessions. ${ownFactorsNote}`,
      tag,
      auth: ownFactors,
      body: codeBody,
      responses: {
        200: { description: 'The recovery codes', schema: recoveryCodes },
        ...errorResponses,
        409: { description: '`no_enrollment`: none was started', schema: errorBody },
      },
      handler: (ctx, { body, principal }) => {
        ctx.set('Cache-Control', 'no-store');
        ctx.body = { recovery_codes: twoFactor.confirmTotp(owner(ctx, principal), body.code, now()) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/user/two-factor/recovery-codes',
      operationId: 'createRecoveryCodes',
      summary: 'A new set of 10 recovery codes, shown once; the previous set stops working',
      description: `Only with a second factor set up (409 \`two_factor_not_enabled\` otherwise). ${ownFactorsNote}`,
      tag,
      auth: ownFactors,
      responses: {
        200: { description: 'The recovery codes', schema: recoveryCodes },
        ...errorResponses,
        409: { description: '`two_factor_not_enabled`', schema: errorBody },
      },
      handler: (ctx, { principal }) => {
        ctx.set('Cache-Control', 'no-store');
        ctx.body = { recovery_codes: twoFactor.newRecoveryCodes(owner(ctx, principal), now()) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/user/two-factor/{method}',
      operationId: 'removeTwoFactorMethod',
      summary: 'Remove a second factor; needs the password in the body, whatever the credential',
      description: `A missing or wrong \`password\` is 403 \`reauthentication_required\` (wrong ones count against the sign-in limits). Without a factor left, the recovery codes go too. Ends the user's other sessions. ${ownFactorsNote}`,
      tag,
      auth: ownFactors,
      params: methodParams,
      body: reauthenticationBody,
      responses: { 204: { description: 'Removed' }, ...errorResponses },
      handler: async (ctx, { params, body, principal }) => {
        await twoFactor.remove(owner(ctx, principal), params.method, body.password, requestClient(ctx), now());
        ctx.status = 204;
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/users/{id}/two-factor',
      operationId: 'resetUserTwoFactor',
      summary: "Take away a user's second factors (they sign in with the password and set one up again); their sessions end",
      description: `Nobody sees a secret. Only owners reset owners. ${administrationNote}`,
      tag: 'Users',
      auth: administration('write'),
      params: userIdParams,
      responses: { 204: { description: 'Reset' }, ...errorResponses },
      handler: (ctx, { params, principal }) => {
        const target = profile.get(principal.orgId, params.id);
        requireMayManage(actingUser(principal)!, target);
        twoFactor.reset(requestOrigin(ctx, principal), target, now());
        ctx.status = 204;
      },
    }),
  ];
}
