import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestEmbeddedAgent } from '../helpers/embedded-agent-under-test.js';
import { newPkce, OAuthBrowser, postForm, registerApplication } from '../helpers/oauth-flow.js';
import { createServiceKey, createTenant, createUserKey, startTestServer, type TestServer } from '../helpers/test-server.js';
import { createThrowawayPostgresDatabase } from '../helpers/throwaway-postgres-database.js';
import { waitUntil } from '../helpers/wait-until.js';

/**
 * What a client library's own tests run against: a real server on a free loopback port over a
 * temporary state directory, its embedded agent monitoring a throwaway database on the local
 * PostgreSQL, and its webhook dispatcher running (private targets allowed, so a test's own
 * loopback receiver gets real deliveries). The tests read all of it from their environment:
 *
 * - `DBMON_BASE_URL`: the server's `/v1` base URL.
 * - `DBMON_API_KEY`: a write service-account key of an enterprise organization, every scope but `agent`.
 * - `DBMON_TEST_ACCESS_TOKEN`: an OAuth access token a member of the same organization granted an
 *   application through the authorization code flow, with the scopes `databases` and `metrics`.
 * - `DBMON_TEST_FREE_API_KEY`: a write key of a free-plan organization (100 requests an hour).
 * - `DBMON_TEST_DATABASE_ID`: the monitored database (of the enterprise organization), with a sample already.
 * - `DBMON_TEST_POSTGRES_HOST`, `_PORT`, `_DATABASE`, `_USERNAME`: a connection to give databases a test creates.
 * - `DBMON_TEST_CONTROL_URL`: `POST {it}/rate-window?ends_in=N` moves the server's clock forward so the
 *   current rate-limit hour ends N seconds later (204); a 429's `Retry-After` is then about N.
 *   Server time only ever moves forward, so the agent's samples stay acceptable.
 */
export interface ClientFixture {
  env: Record<string, string>;
}

export async function startClientFixture(t: { teardown(fn: () => unknown): void }): Promise<ClientFixture> {
  const database = await createThrowawayPostgresDatabase();
  t.teardown(() => database.drop());
  const server = await startTestServer({ allowPrivateWebhookTargets: true });
  t.teardown(server.close);
  let clockOffsetMs = 0;
  Object.defineProperty(server.clock, 'now', { get: () => new Date(Date.now() + clockOffsetMs) });
  server.dispatcher({ pollIntervalMs: 100 }).start();

  const now = server.clock.now;
  const tenant = createTenant(server.services, now, 'enterprise', 'Acme Clients');
  const key = createServiceKey(server.services, tenant.orgId, now, {
    account: 'sa-clients',
    scopes: ['databases', 'metrics', 'queries', 'alerts', 'optimizations', 'webhooks', 'api_keys'],
  });
  const free = createTenant(server.services, now, 'free', 'Free Clients');

  const created = await server.request('POST', '/v1/databases', {
    key,
    body: {
      name: 'monitored',
      type: 'postgresql',
      connection: { host: database.settings.host, port: database.settings.port, database: database.name, username: database.settings.username },
      monitoring: { interval_seconds: 10 },
    },
  });
  if (created.status !== 201) throw new Error(`creating the monitored database answered ${created.status}: ${created.text}`);
  const databaseId = created.body.id as string;
  startTestEmbeddedAgent(t, server);
  // The snapshot answers 200 with a null timestamp until the first sample is stored.
  await waitUntil('a first sample of the monitored database', async () => (await server.request('GET', `/v1/databases/${databaseId}/metrics`, { key })).body?.timestamp != null, 60_000);

  const control = await startControlServer((endsInSeconds) => {
    const serverNow = Date.now() + clockOffsetMs;
    const hourEnd = Math.ceil((serverNow + 1) / 3_600_000) * 3_600_000;
    clockOffsetMs += Math.max(0, hourEnd - endsInSeconds * 1000 - serverNow);
  });
  t.teardown(() => new Promise((resolve) => control.close(resolve)));

  return {
    env: {
      DBMON_BASE_URL: `${server.url}/v1`,
      DBMON_API_KEY: key,
      DBMON_TEST_ACCESS_TOKEN: await grantedAccessToken(server, tenant.orgId),
      DBMON_TEST_FREE_API_KEY: free.key,
      DBMON_TEST_DATABASE_ID: databaseId,
      DBMON_TEST_POSTGRES_HOST: database.settings.host,
      DBMON_TEST_POSTGRES_PORT: String(database.settings.port),
      DBMON_TEST_POSTGRES_DATABASE: database.name,
      DBMON_TEST_POSTGRES_USERNAME: database.settings.username,
      DBMON_TEST_CONTROL_URL: `http://127.0.0.1:${(control.address() as AddressInfo).port}`,
    },
  };
}

/** An access token from the real authorization code flow: an admin registers the application, a member grants it. */
async function grantedAccessToken(server: TestServer, orgId: string): Promise<string> {
  const admin = createUserKey(server.services, orgId, server.clock.now, 'admin', 'write', ['databases', 'api_keys']);
  const redirectUri = 'http://127.0.0.1:9/callback';
  const application = await registerApplication(server, admin.key, { name: 'Client tests', redirect_uris: [redirectUri], scopes: ['databases', 'metrics'] });
  const member = await OAuthBrowser.signIn(server, orgId);
  const pkce = newPkce();
  const code = await member.code({
    response_type: 'code',
    client_id: application.client_id,
    redirect_uri: redirectUri,
    scope: 'databases metrics',
    code_challenge: pkce.challenge,
    code_challenge_method: 'S256',
  });
  const token = await postForm(server, '/v1/oauth/token', {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    code_verifier: pkce.verifier,
    client_id: application.client_id,
    client_secret: application.client_secret!,
  });
  if (token.status !== 200) throw new Error(`the token endpoint answered ${token.status}: ${token.text}`);
  return token.body.access_token as string;
}

async function startControlServer(endRateWindowIn: (seconds: number) => void): Promise<Server> {
  const control = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://control');
    const seconds = Number(url.searchParams.get('ends_in'));
    if (request.method !== 'POST' || url.pathname !== '/rate-window' || !Number.isInteger(seconds) || seconds < 1 || seconds > 3600) {
      response.writeHead(400).end('POST /rate-window?ends_in=<1..3600 seconds>');
      return;
    }
    endRateWindowIn(seconds);
    response.writeHead(204).end();
  });
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
  return control;
}
