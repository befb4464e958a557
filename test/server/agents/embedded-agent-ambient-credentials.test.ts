import t from 'tap';
import { startTestEmbeddedAgent } from '../../helpers/embedded-agent-under-test.js';
import { startFakePostgresServer } from '../../helpers/fake-postgres-server.js';
import { withProcessEnvironment } from '../../helpers/process-environment.js';
import { createTenant, startTestServer } from '../../helpers/test-server.js';
import { waitUntil } from '../../helpers/wait-until.js';
import { wildcardPgpassFile } from '../../helpers/wildcard-pgpass-file.js';

t.test("the embedded agent never hands the server process's PGPASSWORD or pgpass entry to a database's server", async (t) => {
  // node-postgres reads these from the process it runs in: here, the server's.
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
      name: 'no stored password',
      type: 'postgresql',
      connection: { host: '127.0.0.1', port: fake.port, database: 'app', username: 'monitor' },
      monitoring: { interval_seconds: 10 },
    },
  });
  t.equal(created.status, 201, created.text);

  startTestEmbeddedAgent(t, server);
  const record = async () => (await server.request('GET', `/v1/databases/${created.body.id}`, { key: tenant.key })).body;
  await waitUntil('a collection against the fake server', async () => (await record()).last_error != null, 20_000);
  t.ok(fake.startups.length > 0, 'the embedded agent did connect to it');
  t.same(fake.passwords, [], 'and sent it no password');
  t.match((await record()).last_error, { code: 'authentication_failed', message: /none is stored/ });
});
