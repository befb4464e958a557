import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oauth from 'oauth4webapi';
import t from 'tap';
import { freePort } from '../../helpers/batch-receiver.js';
import { BrowserUnderTest } from '../../helpers/browser.js';
import { registerApplication } from '../../helpers/oauth-flow.js';
import { createPasswordUser, testPassword } from '../../helpers/sign-in.js';
import { createTenant, createUserKey, startTestServer } from '../../helpers/test-server.js';

/** The third-party application's callback: a page of its own, on its own origin. */
async function startCallback(): Promise<{ server: Server; url: string }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end('<!DOCTYPE html><html lang="en"><head><title>Reporter</title></head><body><main><h1>Reporter is connected</h1></main></body></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

// oauth4webapi insists on https; the test server speaks http on loopback.
const insecure = { [oauth.allowInsecureRequests]: true };

t.test('a real OAuth client (oauth4webapi) through the consent page in chromium', async (t) => {
  const port = await freePort();
  const server = await startTestServer({ port, publicUrl: `http://127.0.0.1:${port}` });
  t.teardown(server.close);
  const callback = await startCallback();
  t.teardown(() => new Promise<void>((resolve) => callback.server.close(() => resolve())));
  const browser = await BrowserUnderTest.launch(server.url, import.meta.url);
  t.teardown(() => browser.close());
  const tenant = createTenant(server.services, server.clock.now, 'pro', 'Acme Operations');
  const admin = createUserKey(server.services, tenant.orgId, server.clock.now, 'admin', 'write', ['api_keys']);
  const { email } = await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now);
  const redirectUri = `${callback.url}/callback`;
  const application = await registerApplication(server, admin.key, { name: 'Reporter', redirect_uris: [redirectUri], scopes: ['databases', 'metrics'] });

  const as = await oauth.processDiscoveryResponse(new URL(server.url), await oauth.discoveryRequest(new URL(server.url), { algorithm: 'oauth2', ...insecure }));
  const client: oauth.Client = { client_id: application.client_id };
  const clientAuth = oauth.ClientSecretBasic(application.client_secret!);
  const authorizationUrl = (state: string, challenge: string, scope = 'databases metrics') => {
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: redirectUri, scope, state, code_challenge: challenge, code_challenge_method: 'S256' }).toString();
    return url.href;
  };

  await t.test('sign in, consent, code, token, the API, refresh, revoke; consent is remembered', async (t) => {
    await browser.withPage(
      t,
      async ({ page, audit }) => {
        const verifier = oauth.generateRandomCodeVerifier();
        const state = oauth.generateRandomState();
        await page.goto(authorizationUrl(state, await oauth.calculatePKCECodeChallenge(verifier)));
        t.equal(new URL(page.url()).pathname, '/login', 'signed out, the authorization goes through the sign-in page');
        await page.getByLabel('Email').fill(email);
        await page.getByLabel('Password').fill(testPassword);
        await Promise.all([page.waitForURL(/\/oauth\/authorize\?/), page.getByRole('button', { name: 'Sign in' }).click()]);
        await t.resolveMatch(page.getByRole('heading', { level: 1 }).textContent(), 'Authorize Reporter?');
        await t.resolveMatch(page.locator('main').textContent(), 'registered by the organization Acme Operations');
        t.same(await page.locator('.scopes li').allTextContents(), ['Monitored databases: their list, settings and connections', 'Metrics of your databases: current values and history']);
        await audit('consent');
        await Promise.all([page.waitForURL(`${redirectUri}?**`), page.getByRole('button', { name: 'Authorize' }).click()]);

        const parameters = oauth.validateAuthResponse(as, client, new URL(page.url()), state);
        const tokens = await oauth.processAuthorizationCodeResponse(
          as,
          client,
          await oauth.authorizationCodeGrantRequest(as, client, clientAuth, parameters, redirectUri, verifier, insecure),
        );
        t.match(tokens, { token_type: 'bearer', expires_in: 3600, scope: 'databases metrics' });
        t.equal((await server.request('GET', '/v1/databases', { key: tokens.access_token })).status, 200, 'the token works on /v1');

        const refreshed = await oauth.processRefreshTokenResponse(
          as,
          client,
          await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token!, insecure),
        );
        t.not(refreshed.refresh_token, tokens.refresh_token, 'the refresh token rotates');
        t.equal((await server.request('GET', '/v1/databases', { key: refreshed.access_token })).status, 200);

        await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, clientAuth, refreshed.refresh_token!, insecure));
        const revoked = await server.request('GET', '/v1/databases', { key: refreshed.access_token });
        t.equal(revoked.status, 401, 'revoking the refresh token ends its family');

        const secondState = oauth.generateRandomState();
        await Promise.all([page.waitForURL(`${redirectUri}?**`), page.goto(authorizationUrl(secondState, await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier())))]);
        t.ok(oauth.validateAuthResponse(as, client, new URL(page.url()), secondState).get('code'), 'consent given before is not asked again');
      },
      { allowedOrigins: [callback.url] },
    );
  });

  await t.test('declining tells the application access_denied', async (t) => {
    const { email: viewerEmail } = await createPasswordUser(server.services, tenant.orgId, 'viewer', server.clock.now);
    await browser.withPage(
      t,
      async ({ page, audit }) => {
        const state = oauth.generateRandomState();
        await page.goto(authorizationUrl(state, await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()), 'metrics'));
        await page.getByLabel('Email').fill(viewerEmail);
        await page.getByLabel('Password').fill(testPassword);
        await Promise.all([page.waitForURL(/\/oauth\/authorize\?/), page.getByRole('button', { name: 'Sign in' }).click()]);
        await t.resolveMatch(page.locator('main').textContent(), 'It acts with your role, viewer: it can read these but change nothing.');
        await audit('consent-viewer');
        await Promise.all([page.waitForURL(`${redirectUri}?**`), page.getByRole('button', { name: 'Cancel' }).click()]);
        const refusal = (() => {
          try {
            return oauth.validateAuthResponse(as, client, new URL(page.url()), state);
          } catch (error) {
            return error;
          }
        })();
        t.type(refusal, oauth.AuthorizationResponseError);
        t.match(refusal, { error: 'access_denied' });
      },
      { allowedOrigins: [callback.url] },
    );
  });

  await t.test('an unknown redirect URI is an error page in the browser, and nothing leaves the origin', async (t) => {
    await browser.withPage(t, async ({ page, audit }) => {
      const url = new URL(authorizationUrl('s', await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier())));
      url.searchParams.set('redirect_uri', `${redirectUri}/../evil`);
      const response = await page.goto(url.href);
      t.equal(response?.status(), 400);
      await t.resolveMatch(page.locator('main').textContent(), 'The redirect address is not one registered for Reporter');
      await audit('untrusted-redirect');
    }, { expectedConsoleErrors: [/status of 400/] });
  });
});
