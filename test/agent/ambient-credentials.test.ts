import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { startFakePostgresServer } from '../helpers/fake-postgres-server.js';
import { spawnAgent } from '../helpers/spawn-agent.js';
import { tempDir } from '../helpers/temp-dir.js';
import { createServiceKey, createTenant, startTestServer } from '../helpers/test-server.js';
import { waitUntil } from '../helpers/wait-until.js';
import { wildcardPgpassFile } from '../helpers/wildcard-pgpass-file.js';

t.setTimeout(180_000);

t.test("a write key cannot collect the agent host's PGPASSWORD or pgpass entry through a server-assigned database", async (t) => {
  const ambientPassword = 'Hn2-agent-host-PGPASSWORD';
  const pgpassPassword = 'Vd9-agent-host-pgpass-entry';
  const dir = tempDir(t, 'dbmon-ambient-');
  const pgpass = wildcardPgpassFile(t, pgpassPassword);
  const hostile = await startFakePostgresServer();
  t.teardown(() => hostile.close());
  const operators = await startFakePostgresServer();
  t.teardown(() => operators.close());

  const server = await startTestServer();
  t.teardown(server.close);
  Object.defineProperty(server.clock, 'now', { get: () => new Date() });
  const tenant = createTenant(server.services, new Date());
  const agentKey = createServiceKey(server.services, tenant.orgId, new Date(), { scopes: ['agent'], account: 'ambient-agent' });
  const agentId: string = (await server.request('GET', '/v1/agent/assignments', { key: agentKey })).body.agent_id;
  const createDatabase = async (name: string, port: number): Promise<string> => {
    const created = await server.request('POST', '/v1/databases', {
      key: tenant.key,
      body: {
        name,
        type: 'postgresql',
        agent_id: agentId,
        connection: { host: '127.0.0.1', port, database: 'app', username: 'monitor' },
        monitoring: { interval_seconds: 10 },
      },
    });
    t.equal(created.status, 201, created.text);
    t.equal(created.body.connection.password_set, false);
    return created.body.id;
  };
  const assignedId = await createDatabase('pointed at a hostile server', hostile.port);
  const localId = await createDatabase('configured on the agent host', 5432);
  server.db.prepare('UPDATE databases SET interval_seconds = 1 WHERE agent_id = ?').run(agentId);

  const configFile = join(dir, 'agent.yaml');
  writeFileSync(
    configFile,
    `server:
  url: ${server.url}
  agent_key: ${agentKey}
state_dir: ${join(dir, 'state')}
databases:
  - id: ${localId}
    type: postgresql
    interval_seconds: 1
    connection: { host: 127.0.0.1, port: ${operators.port}, database: app, username: operator }
`,
  );
  const agent = spawnAgent({ DBMON_AGENT_CONFIG: configFile, PGPASSWORD: ambientPassword, PGPASSFILE: pgpass });
  t.teardown(() => agent.child.kill('SIGKILL'));

  const lastError = async (id: string) => (await server.request('GET', `/v1/databases/${id}`, { key: tenant.key })).body.last_error;
  await waitUntil('a collection of the assigned database, reported to the server', async () => (await lastError(assignedId)) != null, 90_000);
  await waitUntil('a collection of the local database', async () => operators.passwords.length > 0, 30_000);

  t.ok(hostile.startups.length > 0, 'the agent did connect to the hostile server');
  t.same(hostile.passwords, [], 'it never sends that server a password: neither PGPASSWORD nor the pgpass entry');
  t.match(await lastError(assignedId), { code: 'authentication_failed', message: /none is stored/ }, 'last_error says why');
  t.equal(operators.passwords[0], ambientPassword, "a database of the agent's own config file still authenticates with PGPASSWORD");
  t.notMatch(JSON.stringify(agent.lines), ambientPassword, 'nor is the ambient password ever logged');
});
