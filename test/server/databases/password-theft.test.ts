import t from 'tap';
import { startTestEmbeddedAgent } from '../../helpers/embedded-agent-under-test.js';
import { startFakePostgresServer } from '../../helpers/fake-postgres-server.js';
import { withProcessEnvironment } from '../../helpers/process-environment.js';
import { createTenant, startTestServer } from '../../helpers/test-server.js';
import { waitUntil } from '../../helpers/wait-until.js';
import { wildcardPgpassFile } from '../../helpers/wildcard-pgpass-file.js';

t.test('a write key that points a database at its own server does not get the stored password', async (t) => {
  const secret = 'Kx4-stored-database-password-Qm7';
  // Nor may the embedded agent fall back to the server process's own PGPASSWORD or pgpass file.
  withProcessEnvironment(t, { PGPASSWORD: 'Tb5-server-process-PGPASSWORD', PGPASSFILE: wildcardPgpassFile(t, 'Lc1-server-pgpass-entry') });
  const fake = await startFakePostgresServer();
  t.teardown(() => fake.close());
  const server = await startTestServer();
  t.teardown(server.close);
  Object.defineProperty(server.clock, 'now', { get: () => new Date() });
  const tenant = createTenant(server.services, new Date());

  const created = await server.request('POST', '/v1/databases', {
    key: tenant.key,
    body: {
      name: 'production',
      type: 'postgresql',
      connection: { host: '127.0.0.1', port: 5432, database: 'app', username: 'monitor', password: secret },
      monitoring: { interval_seconds: 10 },
    },
  });
  t.equal(created.status, 201);
  t.equal(created.body.connection.password_set, true);

  const moved = await server.request('PUT', `/v1/databases/${created.body.id}`, {
    key: tenant.key,
    body: { connection: { port: fake.port } },
  });
  t.equal(moved.status, 200);
  t.equal(moved.body.connection.port, fake.port);
  t.equal(moved.body.connection.password_set, false, 'the answer says the password is gone');

  startTestEmbeddedAgent(t, server);

  const metricsPath = `/v1/databases/${created.body.id}/metrics`;
  await waitUntil(
    'a collection against the fake server',
    async () => fake.startups.length > 0 && (await server.request('GET', metricsPath, { key: tenant.key })).body.timestamp !== null,
    20_000,
  );
  t.match(fake.startups[0], { user: 'monitor', database: 'app' }, 'the agent did connect to the fake server');
  t.notOk(fake.passwords.includes(secret), 'the stored password never reaches it');
  t.same(fake.passwords.filter((password) => password.length > 0), [], 'nor does any other password');
});

t.test('the OpenAPI document says a change of connection clears the password and what it does to optimizations', async (t) => {
  const server = await startTestServer();
  t.teardown(server.close);
  const doc = (await server.request('GET', '/v1/openapi.json')).body;
  const put = doc.paths['/v1/databases/{id}'].put;
  t.match(put.description, /clears the stored password unless the same request gives `connection\.password`/);
  t.match(put.description, /`ready` optimization of the database `dismissed`/);
  t.match(doc.components.schemas.DatabaseUpdate.properties.connection.properties.password.description, /cleared too/);
  t.match(doc.components.schemas.Database.properties.connection.properties.password_set.description, /turns false/);
  const report = doc.paths['/v1/agent/jobs/{id}/result'].post;
  t.match(report.responses['409'].description, /connection_changed/);
  t.ok(doc.components.schemas.Error.properties.error.properties.code.enum.includes('connection_changed'));
});
