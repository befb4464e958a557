import { defineRoute, type RouteDefinition } from '../../http/route.js';
import { errorBody, errorResponses } from '../../openapi/error-responses.js';
import { administration, administrationNote } from '../administration.js';
import { requestOrigin } from '../audit/audit-origin.js';
import { samlSettingsBody, samlSettingsRecord, samlTestStarted } from './saml-schema.js';
import type { SamlSettingsService } from './saml-settings-service.js';
import type { SamlSignIn } from './saml-sign-in.js';

const tag = 'Single sign-on';

export function samlRoutes(settings: SamlSettingsService, signIn: SamlSignIn, now: () => Date): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/org/saml',
      operationId: 'getSamlSettings',
      summary: "The organization's SAML 2.0 single sign-on settings, with the addresses to give the identity provider",
      description: administrationNote,
      tag,
      auth: administration('read'),
      responses: { 200: { description: 'The settings', schema: samlSettingsRecord }, ...errorResponses },
      handler: (ctx, { principal }) => {
        ctx.body = settings.settings(principal.orgId, now());
      },
    }),
    defineRoute({
      method: 'put',
      path: '/v1/org/saml',
      operationId: 'replaceSamlSettings',
      summary: "Replace the organization's SAML settings",
      description:
        'The certificate must be one X.509 certificate, valid now, with an RSA key of 2048 bits or more or an EC key on P-256, P-384 or P-521 ' +
        '(400 otherwise). Changing anything but `enabled` voids the last passed test; `enabled: true` needs a passed test of the ' +
        `configuration as saved (409 \`saml_test_required\`). Once enabled, members sign in through SAML; owners keep their password. ${administrationNote}`,
      tag,
      auth: administration('write'),
      body: samlSettingsBody,
      responses: {
        200: { description: 'The settings', schema: samlSettingsRecord },
        ...errorResponses,
        409: { description: '`saml_test_required`: no passed test of this configuration', schema: errorBody },
      },
      handler: (ctx, { body, principal }) => {
        ctx.body = settings.replace(requestOrigin(ctx, principal), body, now());
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/org/saml/test',
      operationId: 'testSamlSettings',
      summary: 'Start a test round trip of the saved SAML configuration',
      description:
        "Answers the identity provider's address with a test AuthnRequest. Its response comes back to the ACS, which shows the user " +
        `it maps to without creating or signing in anyone, and marks the configuration tested. 404 when nothing is saved. ${administrationNote}`,
      tag,
      auth: administration('write'),
      responses: { 200: { description: 'Where to send the browser', schema: samlTestStarted }, ...errorResponses },
      handler: async (ctx, { principal }) => {
        ctx.body = { test_url: await signIn.startTest(requestOrigin(ctx, principal), now()) };
      },
    }),
  ];
}
