import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { startBatchReceiver } from '../helpers/batch-receiver.js';
import { localAgentYaml } from '../helpers/local-agent-yaml.js';
import { spawnAgent } from '../helpers/spawn-agent.js';
import { tempDir } from '../helpers/temp-dir.js';
import { waitUntil } from '../helpers/wait-until.js';

t.setTimeout(120_000);

const agentKey = 'dbm_sak_driverloadkeydriverloadkeydriv12';
const recorder = fileURLToPath(new URL('../fixtures/node/record-loaded-packages.mjs', import.meta.url));
/** The node flags of the agent's #! line (--jitless among them): the agent runs, collects and delivers with them. */
const agentNodeFlags = readFileSync(new URL('../../agent/main.ts', import.meta.url), 'utf8')
  .split('\n', 1)[0]!
  .split(' ')
  .filter((word) => word.startsWith('--'));
const localDatabases = {
  postgresql: '{ host: 127.0.0.1, port: 5432, database: test, username: postgres }',
  mariadb: '{ host: 127.0.0.1, port: 3306, database: mysql, username: root }',
} as const;

/** Runs `dbmon-agent run` with one local database of `type` until the receiver stored a sample of it; the npm packages it loaded. */
async function packagesLoadedCollecting(t: Test, type: keyof typeof localDatabases): Promise<string[]> {
  const dir = tempDir(t);
  const receiver = await startBatchReceiver({ dbFile: join(dir, 'received.db') });
  t.teardown(receiver.close);
  const configFile = join(dir, 'agent.yaml');
  writeFileSync(
    configFile,
    localAgentYaml({
      serverUrl: receiver.url,
      agentKey,
      stateDir: join(dir, 'state'),
      databases: [{ id: 'db_only', type, intervalSeconds: 1, connection: localDatabases[type] }],
    }),
  );
  const loadedFile = join(dir, 'loaded.json');
  const agent = spawnAgent({ DBMON_AGENT_CONFIG: configFile, DBMON_TEST_LOADED_PACKAGES_FILE: loadedFile }, [...agentNodeFlags, '--import', recorder]);
  t.teardown(() => agent.child.kill('SIGKILL'));
  await waitUntil(`a ${type} sample`, async () => receiver.storedSamples().some((sample) => sample.database_id === 'db_only'), 90_000);
  agent.child.kill('SIGTERM');
  t.match(await agent.exited, { code: 0 }, agent.stderr());
  return JSON.parse(readFileSync(loadedFile, 'utf8')) as string[];
}

t.test('an agent collecting only PostgreSQL loads pg and never mysql2', async (t) => {
  const loaded = await packagesLoadedCollecting(t, 'postgresql');
  t.ok(loaded.includes('pg'), `pg is among ${loaded.join(', ')}`);
  t.notOk(loaded.includes('mysql2'), 'mysql2 is not loaded');
  t.notOk(loaded.includes('node:undici'), "pg does not make node load its fetch (undici), which --jitless could not run");
  t.notOk(loaded.includes('node:https'), 'an agent with an http:// server does not load the HTTPS client');
  t.ok(loaded.includes('agent/advisor/job-runner'), "the agent's own modules are recorded");
  t.notOk(
    loaded.some((name) => /^agent\/advisor\/(postgres|mysql)-/.test(name)),
    'an agent that was given no optimization job loads no advisor',
  );
});

t.test('an agent collecting only MariaDB loads mysql2 and never pg', async (t) => {
  const loaded = await packagesLoadedCollecting(t, 'mariadb');
  t.ok(loaded.includes('mysql2'), `mysql2 is among ${loaded.join(', ')}`);
  t.notOk(loaded.includes('pg'), 'pg is not loaded');
  t.notOk(loaded.includes('node:undici'), "node's fetch (undici) is not loaded");
});
