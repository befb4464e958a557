import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { startClientFixture } from '../../../test/clients/client-fixture.js';
import { DbmonClient, InvalidRequestError, NotFoundError, PermissionDeniedError, RateLimitError, verifyWebhook, WebhookVerificationError } from '../src/index.js';

// Every test of the client against a real server: one fixture, the rate-limit window moved last
// (it moves the server's clock forward, which webhook timestamps would then carry).
const { env } = await startClientFixture(t);
const dbmon = new DbmonClient({ baseUrl: env.DBMON_BASE_URL, apiKey: env.DBMON_API_KEY });
const connection = {
  host: env.DBMON_TEST_POSTGRES_HOST as string,
  port: Number(env.DBMON_TEST_POSTGRES_PORT),
  database: env.DBMON_TEST_POSTGRES_DATABASE as string,
  username: env.DBMON_TEST_POSTGRES_USERNAME as string,
};

t.test('every /v1 operation of the served document has a method', async (t) => {
  const document = (await dbmon.openApiDocument()) as unknown as { paths: Record<string, Record<string, { operationId?: string }>> };
  const operationIds = Object.entries(document.paths)
    .filter(([path]) => path.startsWith('/v1/'))
    .flatMap(([, item]) => Object.values(item).map((operation) => operation.operationId));
  t.ok(operationIds.length > 70);
  t.same(operationIds.filter((id) => typeof (dbmon as unknown as Record<string, unknown>)[id as string] !== 'function'), []);
});

t.test('databases: create, read, update, list across pages, delete', async (t) => {
  const created = await Promise.all(['one', 'two', 'three'].map((name) => dbmon.createDatabase({ body: { name: `paged-${name}`, type: 'postgresql', connection } })));
  t.equal(created[0]?.name, 'paged-one');
  const read = await dbmon.getDatabase({ id: created[0]!.id });
  t.equal(read.id, created[0]!.id);
  const updated = await dbmon.updateDatabase({ id: read.id, body: { name: 'paged-renamed' } });
  t.equal(updated.name, 'paged-renamed');
  t.same(dbmon.rateLimit && dbmon.rateLimit.limit, 10_000, 'the last X-RateLimit-Limit');

  const names: string[] = [];
  for await (const database of dbmon.paginate.listDatabases({ per_page: 2, type: 'postgresql' })) names.push(database.name);
  t.same(names.sort(), ['monitored', 'paged-renamed', 'paged-three', 'paged-two'], 'four databases over two pages of two');

  for (const database of created) t.equal(await dbmon.deleteDatabase({ id: database.id }), undefined);
  await t.rejects(dbmon.getDatabase({ id: created[0]!.id }), NotFoundError);
});

t.test('metrics and history of the monitored database', async (t) => {
  const current = await dbmon.getCurrentMetrics({ id: env.DBMON_TEST_DATABASE_ID as string });
  t.equal(current.database_id, env.DBMON_TEST_DATABASE_ID);
  t.ok(current.timestamp, 'a sample from the embedded agent');
  const history = await dbmon.getMetricsHistory({ id: env.DBMON_TEST_DATABASE_ID as string, range: '1h', resolution: 'raw' });
  t.ok(history.data.length >= 1);
});

t.test('an OAuth access token a user granted acts within its scopes', async (t) => {
  const application = new DbmonClient({ baseUrl: env.DBMON_BASE_URL, accessToken: env.DBMON_TEST_ACCESS_TOKEN });
  t.equal((await application.getDatabase({ id: env.DBMON_TEST_DATABASE_ID as string })).name, 'monitored');
  await t.rejects(application.listAlertRules(), PermissionDeniedError, 'alerts is not a granted scope');
});

t.test('an alert rule', async (t) => {
  const rule = await dbmon.createAlertRule({ body: { name: 'many connections', database_id: env.DBMON_TEST_DATABASE_ID as string, metric: 'connections.total', operator: '>', threshold: 90 } });
  t.match(rule.id, /^rule_/);
  t.equal((await dbmon.getAlertRule({ id: rule.id })).name, 'many connections');
});

t.test('a 404 and a 400 are typed errors with status, code and request id', async (t) => {
  const missing = await dbmon.getDatabase({ id: 'db_doesnotexist00000000000' }).catch((error: unknown) => error);
  t.type(missing, NotFoundError);
  t.match(missing, { status: 404, type: 'not_found', code: 'resource_missing', requestId: /\S+/ });
  const invalid = await dbmon.listDatabases({ per_page: 1000 }).catch((error: unknown) => error);
  t.type(invalid, InvalidRequestError);
  t.match(invalid, { status: 400, type: 'invalid_request', code: 'invalid_parameter', param: 'per_page', requestId: /\S+/ });
});

t.test('a real webhook delivery verifies, a tampered one does not', async (t) => {
  const deliveries: Array<{ body: string; headers: Record<string, string | string[] | undefined> }> = [];
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      deliveries.push({ body: Buffer.concat(chunks).toString('utf8'), headers: request.headers });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => receiver.close(resolve)));

  const webhook = await dbmon.createWebhook({ body: { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook` } });
  await dbmon.testWebhook({ id: webhook.id });
  const deadline = Date.now() + 30_000;
  while (deliveries.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  const delivery = deliveries[0]!;
  const event = verifyWebhook(delivery.body, delivery.headers, webhook.secret);
  t.equal(event.type, 'webhook.test');
  t.match(event.id, /^evt_/);
  if (event.type !== 'webhook.test') throw new Error(`a ${event.type} event`);
  // Narrowed on its type, the event's object is a typed Webhook (this line does not type-check otherwise).
  const endpoint: { id: string; url: string; enabled: boolean } = event.data.object;
  t.match(endpoint, { id: webhook.id, url: webhook.url, enabled: true });
  t.throws(() => verifyWebhook(delivery.body.replace('webhook.test', 'alert.resolved'), delivery.headers, webhook.secret), WebhookVerificationError);
  t.throws(() => verifyWebhook(delivery.body, delivery.headers, `whsec_${Buffer.alloc(24, 1).toString('base64')}`), WebhookVerificationError);
});

t.test("the README's example is the committed example file, and runs as written", async (t) => {
  const example = fileURLToPath(new URL('../examples/quickstart.js', import.meta.url));
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const block = /```js\n([\s\S]*?)```/.exec(readme)?.[1];
  t.equal(block, readFileSync(example, 'utf8'));
  // @dbmon/client resolves to the package's own build (npm run build compiles it). Not spawnSync:
  // the server answering the example runs in this process.
  const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(process.execPath, [example], { env: { PATH: process.env.PATH, ...env }, timeout: 30_000 }, (_error, stdout, stderr) =>
      resolve({ code: child.exitCode, stdout, stderr }),
    );
  });
  t.equal(run.code, 0, run.stderr);
  t.match(run.stdout, /^monitored postgresql \w+$/m);
});

t.test("a free plan's 429 is retried after Retry-After, or thrown with max retries 0", async (t) => {
  const free = new DbmonClient({ baseUrl: env.DBMON_BASE_URL, apiKey: env.DBMON_TEST_FREE_API_KEY });
  const noRetries = new DbmonClient({ baseUrl: env.DBMON_BASE_URL, apiKey: env.DBMON_TEST_FREE_API_KEY, maxRetries: 0 });
  const windowEnd = await fetch(`${env.DBMON_TEST_CONTROL_URL}/rate-window?ends_in=3`, { method: 'POST' });
  t.equal(windowEnd.status, 204);
  while ((free.rateLimit?.remaining ?? 1) > 0) await free.getOrganization();
  t.equal(free.rateLimit?.limit, 100);

  const refused = await noRetries.getOrganization().catch((error: unknown) => error);
  t.type(refused, RateLimitError);
  const retryAfter = (refused as RateLimitError).retryAfter as number;
  t.ok(retryAfter >= 1 && retryAfter <= 3, `Retry-After ${retryAfter}`);

  const started = Date.now();
  const organization = await free.getOrganization();
  t.ok(organization.id);
  t.ok(Date.now() - started >= (retryAfter - 1) * 1000, 'waited for Retry-After before the retry');
});
