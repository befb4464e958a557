import t from 'tap';
import { startTestEmbeddedAgent } from '../../helpers/embedded-agent-under-test.js';
import { createThrowawayPostgresDatabase } from '../../helpers/throwaway-postgres-database.js';
import { createTenant, startTestServer } from '../../helpers/test-server.js';
import { waitUntil } from '../../helpers/wait-until.js';

t.test('the embedded agent monitors a database registered through the API', async (t) => {
  const database = await createThrowawayPostgresDatabase();
  t.teardown(() => database.drop());
  const server = await startTestServer();
  t.teardown(server.close);
  const tenant = createTenant(server.services, new Date());
  const created = await server.request('POST', '/v1/databases', {
    key: tenant.key,
    body: {
      name: 'local',
      type: 'postgresql',
      connection: { host: '127.0.0.1', port: 5432, database: database.name, username: 'postgres' },
      monitoring: { interval_seconds: 10 },
    },
  });
  t.equal(created.status, 201);
  t.equal(created.body.status, 'pending');

  server.clock.now = new Date();
  startTestEmbeddedAgent(t, server);

  const path = `/v1/databases/${created.body.id}`;
  await waitUntil('the first sample', async () => {
    server.clock.now = new Date();
    return (await server.request('GET', path, { key: tenant.key })).body.status === 'healthy';
  }, 20_000);
  const record = await server.request('GET', path, { key: tenant.key });
  t.match(record.body.version, /^15\./, 'the version is detected');
  const metrics = await server.request('GET', `${path}/metrics`, { key: tenant.key });
  t.ok(metrics.body.timestamp, 'a sample is stored');
  t.ok(metrics.body.metrics.connections.max > 0, 'max_connections read from the server');
  t.ok(metrics.body.metrics.memory_usage > 0 && metrics.body.metrics.memory_usage <= 100, 'host memory in percent');
});
