import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import t from 'tap';
import { postgresCollectors } from '../../../agent/collection/collectors/postgres/postgres-collectors.js';
import type { Snapshot } from '../../../common/agent-protocol/snapshot.js';
import { PostgresSource } from '../../../agent/sources/postgres-source.js';
import { collectionRunner } from '../../helpers/collection-under-test.js';
import { startTestEmbeddedAgent } from '../../helpers/embedded-agent-under-test.js';
import { makeSnapshot } from '../../helpers/snapshot-factory.js';
import { createServiceKey, createTenant, startTestServer } from '../../helpers/test-server.js';
import { createThrowawayPostgresDatabase } from '../../helpers/throwaway-postgres-database.js';
import { waitUntil } from '../../helpers/wait-until.js';

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

t.test('the embedded agent records why a database is unreachable, the alert quotes it, and it clears once reachable', async (t) => {
  const database = await createThrowawayPostgresDatabase();
  t.teardown(() => database.drop());
  const server = await startTestServer();
  t.teardown(server.close);
  Object.defineProperty(server.clock, 'now', { get: () => new Date() });
  const tenant = createTenant(server.services, new Date());
  const port = await closedPort();
  const created = await server.request('POST', '/v1/databases', {
    key: tenant.key,
    body: {
      name: 'down',
      type: 'postgresql',
      connection: { host: '127.0.0.1', port, database: database.name, username: 'postgres', password: 'Hn8-never-in-an-error' },
      monitoring: { interval_seconds: 10 },
    },
  });
  t.equal(created.body.last_error, null, 'no error before the first collection');
  const path = `/v1/databases/${created.body.id}`;
  await server.request('POST', '/v1/alerts/rules', {
    key: tenant.key,
    body: { name: 'down at once', database_id: created.body.id, metric: 'reachable', operator: '==', threshold: 0, duration_seconds: 0, severity: 'critical' },
  });

  startTestEmbeddedAgent(t, server, { assignmentsRefreshMs: 200 });

  await waitUntil('a failed collection', async () => (await server.request('GET', path, { key: tenant.key })).body.last_error !== null, 20_000);
  const down = (await server.request('GET', path, { key: tenant.key })).body;
  t.equal(down.status, 'unreachable');
  t.match(down.last_error, { code: 'connection_refused', message: `connect ECONNREFUSED 127.0.0.1:${port}` });
  t.ok(Date.parse(down.last_error.at) <= Date.now(), 'with the time it began');
  const listed = (await server.request('GET', '/v1/databases?status=unreachable', { key: tenant.key })).body.data;
  t.same(listed.find((record: { id: string }) => record.id === created.body.id)?.last_error, down.last_error, 'lists carry it too');
  const alerts = (await server.request('GET', `/v1/alerts?database_id=${created.body.id}`, { key: tenant.key })).body.data;
  t.equal(alerts.length, 1);
  t.match(alerts[0].message, `last error (connection_refused): connect ECONNREFUSED 127.0.0.1:${port}`, 'the alert quotes it');

  const fixed = await server.request('PUT', path, { key: tenant.key, body: { connection: { port: database.settings.port } } });
  t.equal(fixed.status, 200);
  await waitUntil('a successful collection', async () => (await server.request('GET', path, { key: tenant.key })).body.last_error === null, 20_000);
  t.not((await server.request('GET', path, { key: tenant.key })).body.status, 'unreachable', 'reachable again: the error is gone');
});

t.test('the OpenAPI document describes last_error and the codes', async (t) => {
  const server = await startTestServer();
  t.teardown(server.close);
  const doc = (await server.request('GET', '/v1/openapi.json')).body;
  const lastError = doc.components.schemas.Database.properties.last_error;
  t.match(JSON.stringify(lastError), /null before the first failure and again as soon as a collection reaches the database/);
  t.match(JSON.stringify(lastError), /connection_refused, host_not_found/);
  t.match(JSON.stringify(lastError), /password-like are masked/);
  t.match(doc.components.schemas.Alert.properties.message.description, /last_error/);
});

t.test('an agent reports a real authentication failure; the record keeps no secret', async (t) => {
  const database = await createThrowawayPostgresDatabase();
  t.teardown(() => database.drop());
  const role = `dbmon_nologin_${randomBytes(4).toString('hex')}`;
  await database.admin(`CREATE ROLE ${role} NOLOGIN PASSWORD 'Rb2-role-secret'`);
  t.teardown(() => database.admin(`DROP ROLE IF EXISTS ${role}`));

  const start = new Date();
  const server = await startTestServer({ now: start });
  t.teardown(server.close);
  const tenant = createTenant(server.services, start);
  const agentKey = createServiceKey(server.services, tenant.orgId, start, { scopes: ['agent'], account: 'auth-agent' });
  const agentId: string = (await server.request('GET', '/v1/agent/assignments', { key: agentKey })).body.agent_id;
  const password = 'Tq5-stored-password-9Lx';
  const created = await server.request('POST', '/v1/databases', {
    key: tenant.key,
    body: { name: 'refused', type: 'postgresql', agent_id: agentId, connection: { host: '127.0.0.1', database: database.name, username: role, password } },
  });
  const path = `/v1/databases/${created.body.id}`;
  let batches = 0;
  const post = async (snapshot: Snapshot) => {
    const response = await server.request('POST', '/v1/agent/samples', {
      key: agentKey,
      body: { batch_id: `last-error-batch-${String(++batches).padStart(8, '0')}`, samples: [{ database_id: created.body.id, snapshot }] },
    });
    t.equal(response.body.stored, 1, response.text);
    return (await server.request('GET', path, { key: tenant.key })).body;
  };
  const at = (seconds: number) => new Date(start.getTime() - 120_000 + seconds * 1000);

  const refusedSource = new PostgresSource({ ...database.settings, username: role, password }, { statementTimeoutMs: 5000, connectTimeoutMs: 5000 });
  t.teardown(() => refusedSource.close());
  const refused = await collectionRunner(refusedSource, postgresCollectors).collect(at(0));
  t.equal(refused.reachable, false);
  const first = await post(refused);
  t.equal(first.status, 'unreachable');
  t.same(first.last_error, {
    code: 'authentication_failed',
    message: `role "${role}" is not permitted to log in`,
    at: at(0).toISOString(),
  });

  const again = await post({ ...refused, timestamp: at(10).toISOString() });
  t.equal(again.last_error.at, at(0).toISOString(), 'the same error again: `at` still says since when');

  const leaky = await post({
    ...refused,
    timestamp: at(20).toISOString(),
    error: `could not connect with postgresql://${role}:${password}@127.0.0.1/${database.name} (password=${password}; secret: s3cr3t)`,
  });
  t.equal(leaky.last_error.at, at(20).toISOString(), 'another message: a new `at`');
  t.notOk(JSON.stringify(leaky).includes(password), 'the stored password is masked');
  t.notOk(leaky.last_error.message.includes('postgresql://'), 'no connection string');
  t.notOk(leaky.last_error.message.includes('s3cr3t'), 'nor anything password-like');
  t.match(leaky.last_error.message, /^could not connect with \[connection string \[redacted\]\] \(password=\[redacted\]; secret: \[redacted\]\)$/);

  const fromAnOlderAgent: Snapshot = { ...refused, timestamp: at(30).toISOString() };
  delete fromAnOlderAgent.error_code;
  t.equal((await post(fromAnOlderAgent)).last_error.code, 'collection_failed', 'an agent that sends no code');

  const reachable = await post(makeSnapshot(at(40)));
  t.equal(reachable.last_error, null, 'a collection that reached the database clears it');
  t.equal(reachable.status, 'healthy');
  const late = await post({ ...refused, timestamp: at(35).toISOString() });
  t.equal(late.last_error, null, 'a late failure older than the newest sample changes nothing');
});
