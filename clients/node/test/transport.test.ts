import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { APIConnectionError, APIError, DbmonClient, DbmonError, RateLimitError } from '../src/index.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A loopback HTTP server answering with `answer`, recording what it was sent. */
async function recordingServer(t: { teardown(fn: () => unknown): void }, answer: (response: ServerResponse, seen: Seen) => void) {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = { method: request.method as string, url: request.url as string, headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
      seen.push(entry);
      answer(response, entry);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => server.close(resolve)));
  return { seen, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` };
}

t.test('a 5xx is retried for GET, not for POST', async (t) => {
  const { seen, baseUrl } = await recordingServer(t, (response) => response.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"type":"api_error","message":"boom"}}'));
  const client = new DbmonClient({ baseUrl, apiKey: 'dbm_sak_test' });
  await t.rejects(client.listDatabases(), APIError);
  t.equal(seen.length, 3, 'the first attempt and two retries');
  t.equal(client.rateLimit, undefined, 'no X-RateLimit-* headers, nothing remembered');
  await t.rejects(client.createDatabase({ body: { name: 'x', type: 'postgresql', connection: { host: 'h', database: 'd', username: 'u' } } }), { name: 'APIError', message: 'boom', status: 500 });
  t.equal(seen.length, 4, 'the POST once');
});

t.test('a connection dropped after the request was sent: GET retried, POST not', async (t) => {
  const { seen, baseUrl } = await recordingServer(t, (response) => response.socket?.destroy());
  const client = new DbmonClient({ baseUrl });
  await t.rejects(client.testWebhook({ id: 'wh_1' }), APIConnectionError);
  t.equal(seen.length, 1, 'the POST may have acted: not retried');
  await t.rejects(client.getWebhook({ id: 'wh_1' }), APIConnectionError);
  t.equal(seen.length, 4);
});

t.test('a refused connection is an APIConnectionError, after retries even for a POST', async (t) => {
  const { baseUrl } = await recordingServer(t, (response) => response.end());
  const closedPort = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
  const client = new DbmonClient({ baseUrl: baseUrl.replace(/:\d+\//, `:${closedPort}/`), maxRetries: 1 });
  const started = Date.now();
  const error = await client.createWebhook({ body: { url: 'https://example.com/hook' } }).catch((failure: unknown) => failure);
  t.type(error, APIConnectionError);
  t.match(error, { status: undefined, message: /ECONNREFUSED/ });
  t.ok(Date.now() - started < 2_000);
});

t.test('an attempt that takes longer than timeoutMs fails', async (t) => {
  const { seen, baseUrl } = await recordingServer(t, (response) => setTimeout(() => response.end('{}'), 1_000));
  const client = new DbmonClient({ baseUrl, timeoutMs: 100, maxRetries: 0 });
  await t.rejects(client.getOrganization(), APIConnectionError);
  t.equal(seen.length, 1);
});

t.test('a Retry-After beyond maxRetryWaitSeconds throws at once', async (t) => {
  const { seen, baseUrl } = await recordingServer(t, (response) =>
    response.writeHead(429, { 'retry-after': '5', 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1800000000' }).end(),
  );
  const client = new DbmonClient({ baseUrl, maxRetryWaitSeconds: 2 });
  await t.rejects(client.getOrganization(), RateLimitError);
  t.equal(seen.length, 1);
  t.same(client.rateLimit, { limit: 100, remaining: 0, reset: 1_800_000_000 });
});

t.test('credentials, base URL and User-Agent from the options or the environment', async (t) => {
  const { seen, baseUrl } = await recordingServer(t, (response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"org_1"}'));
  const saved = { ...process.env };
  t.teardown(() => {
    process.env = saved;
  });
  process.env.DBMON_BASE_URL = `${baseUrl}/`;
  process.env.DBMON_ACCESS_TOKEN = 'oauth-token-from-env';
  delete process.env.DBMON_API_KEY;
  await new DbmonClient().getOrganization();
  t.equal(seen[0]?.headers.authorization, 'Bearer oauth-token-from-env');
  t.match(seen[0]?.headers['user-agent'], /^dbmon-node\/\d+\.\d+\.\d+$/);
  t.equal(seen[0]?.url, '/v1/org');
  process.env.DBMON_API_KEY = 'dbm_pat_from_env';
  await new DbmonClient().getOrganization();
  t.equal(seen[1]?.headers.authorization, 'Bearer dbm_pat_from_env', 'the API key before the access token');
  await new DbmonClient({ accessToken: 'explicit-token' }).getOrganization();
  t.equal(seen[2]?.headers.authorization, 'Bearer explicit-token', 'the constructor before the environment');
  delete process.env.DBMON_API_KEY;
  delete process.env.DBMON_ACCESS_TOKEN;
  await new DbmonClient().getOrganization();
  t.equal(seen[3]?.headers.authorization, undefined, 'no credential, no header');
  delete process.env.DBMON_BASE_URL;
  t.equal(new DbmonClient().baseUrl, 'http://127.0.0.1:7117/v1');
});

t.test('parameters: path ones encoded, the rest in the query, bodies as JSON or a form', async (t) => {
  const { seen, baseUrl } = await recordingServer(t, (response, request) =>
    request.url.startsWith('/v1/oauth/revoke') ? response.writeHead(200).end() : response.writeHead(200, { 'content-type': 'text/plain' }).end('plain'),
  );
  const client = new DbmonClient({ baseUrl });
  t.equal(await client.getMetricsHistory({ id: 'db/1 x', range: '6h', from: undefined }), 'plain');
  t.equal(seen[0]?.url, '/v1/databases/db%2F1%20x/metrics/history?range=6h');
  t.equal(await client.oauthRevoke({ body: { token: 'abc', token_type_hint: undefined, client_id: 'app_1' } as never }), undefined);
  t.equal(seen[1]?.headers['content-type'], 'application/x-www-form-urlencoded');
  t.equal(seen[1]?.body, 'token=abc&client_id=app_1');
  await client.updateOrganization({ body: { name: 'Acme' } });
  t.equal(seen[2]?.headers['content-type'], 'application/json');
  t.equal(seen[2]?.body, '{"name":"Acme"}');
  await client.updateOrganization({} as never);
  t.equal(seen[3]?.body, '', 'no body given, none sent');
  await t.rejects(client.getDatabase({ id: '' }), TypeError);
  await t.rejects(client.getDatabase({} as never), /the path parameter id is required/);
});

t.test('paging does not follow a next link to another origin', async (t) => {
  const { seen, baseUrl } = await recordingServer(t, (response) =>
    response.writeHead(200, { 'content-type': 'application/json', link: '<http://attacker.invalid/v1/databases?page=2>; rel="next"' }).end('{"data":[{"id":"db_1"}],"pagination":{}}'),
  );
  const client = new DbmonClient({ baseUrl, apiKey: 'dbm_sak_secret' });
  const items: unknown[] = [];
  const error = await (async () => {
    for await (const item of client.paginate.listDatabases()) items.push(item);
  })().catch((failure: unknown) => failure);
  t.type(error, DbmonError);
  t.match(error, { message: /another origin/ });
  t.same(items, [{ id: 'db_1' }]);
  t.equal(seen.length, 1);
});
