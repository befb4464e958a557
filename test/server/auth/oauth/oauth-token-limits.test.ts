import t, { type Test } from 'tap';
import { tokenEndpointFailureLimit } from '../../../../server/auth/oauth/token-endpoint-throttle.js';
import { newPkce, OAuthBrowser, postForm, registerApplication, wrongSecretOf, type RegisteredApplication } from '../../../helpers/oauth-flow.js';
import { createTenant, createUserKey, startTestServer, type TestResponse } from '../../../helpers/test-server.js';

// The loopback proxy is believed, so each test names the client address it comes from.
const server = await startTestServer({ trustedProxies: ['127.0.0.1'] });
t.teardown(server.close);
const tenant = createTenant(server.services, server.clock.now, 'free');
const admin = createUserKey(server.services, tenant.orgId, server.clock.now, 'admin', 'write', ['databases', 'api_keys']);
const redirectUri = 'http://127.0.0.1:9/callback';
const targeted = await registerApplication(server, admin.key, { name: 'Targeted', redirect_uris: [redirectUri] });
const bystander = await registerApplication(server, admin.key, { name: 'Bystander', redirect_uris: [redirectUri] });
const busy = await registerApplication(server, admin.key, { name: 'Busy', redirect_uris: [redirectUri] });
const browser = await OAuthBrowser.signIn(server, tenant.orgId);

function tokenRequest(app: RegisteredApplication, from: string, fields: Record<string, string>): Promise<TestResponse> {
  return postForm(server, '/v1/oauth/token', { client_id: app.client_id, ...fields }, { 'x-forwarded-for': from });
}

const wrongSecret = (app: RegisteredApplication, from: string) =>
  tokenRequest(app, from, { grant_type: 'refresh_token', refresh_token: 'dbm_ort_x', client_secret: wrongSecretOf(app.client_secret!) });

function expectContract429(t: Test, answer: TestResponse, label: string): void {
  t.equal(answer.status, 429, label);
  t.equal(answer.body.error.type, 'rate_limit_exceeded', label);
  t.equal(answer.headers.get('x-ratelimit-remaining'), '0', label);
  t.equal(String(answer.body.error.retry_after), answer.headers.get('x-ratelimit-reset'), `${label}: retry_after is the reset`);
  t.ok(Number(answer.headers.get('retry-after')) > 0, `${label}: Retry-After`);
}

t.test('attack: failures are limited per client address and per client, whatever the plan, with the 429 contract', async (t) => {
  for (let attempt = 1; attempt <= tokenEndpointFailureLimit; attempt++) {
    const answer = await wrongSecret(targeted, '203.0.113.5');
    if (answer.status !== 401) t.fail(`attempt ${attempt}: ${answer.status}`);
    if (attempt === 1) t.equal(answer.headers.get('x-ratelimit-limit'), String(tokenEndpointFailureLimit), 'the limit is told');
  }
  expectContract429(t, await wrongSecret(targeted, '203.0.113.5'), 'the address has used its failures');
  expectContract429(t, await wrongSecret(bystander, '203.0.113.5'), 'for any client it names');
  expectContract429(t, await wrongSecret(targeted, '198.51.100.7'), 'the client has used its failures, from any address');
  const other = await wrongSecret(bystander, '198.51.100.7');
  t.equal(other.status, 401, 'another client from another address is still answered');
  t.equal(other.body.error, 'invalid_client');
  server.clock.now = new Date(server.clock.now.getTime() + 15 * 60_000);
  t.equal((await wrongSecret(targeted, '203.0.113.5')).status, 401, 'a quarter of an hour later, both count afresh');
});

t.test('a client that succeeds is not limited by the plan: past the free plan\'s 100 an hour from one address', async (t) => {
  const pkce = newPkce();
  const code = await browser.code({ response_type: 'code', client_id: busy.client_id, redirect_uri: redirectUri, code_challenge: pkce.challenge, code_challenge_method: 'S256' });
  const secret = { client_secret: busy.client_secret! };
  let answer = await tokenRequest(busy, '192.0.2.10', { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: pkce.verifier, ...secret });
  let refused = 0;
  for (let refresh = 1; refresh <= 101; refresh++) {
    answer = await tokenRequest(busy, '192.0.2.10', { grant_type: 'refresh_token', refresh_token: answer.body.refresh_token, ...secret });
    if (answer.status !== 200) refused++;
  }
  t.equal(refused, 0, 'every refresh answered');
  t.equal(answer.headers.get('x-ratelimit-remaining'), String(tokenEndpointFailureLimit), 'successes use up nothing');
});
