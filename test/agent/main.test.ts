import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { startBatchReceiver } from '../helpers/batch-receiver.js';
import { localAgentYaml } from '../helpers/local-agent-yaml.js';
import { spawnAgent } from '../helpers/spawn-agent.js';
import { tempDir } from '../helpers/temp-dir.js';
import { waitUntil } from '../helpers/wait-until.js';

t.setTimeout(180_000);

const agentKey = 'dbm_sak_maintestkeymaintestkeymaintest12';

t.test('dbmon-agent run: local databases, SIGHUP reload, one agent per state dir, SIGTERM', async (t) => {
  const dir = tempDir(t);
  const receiver = await startBatchReceiver({ dbFile: join(dir, 'received.db') });
  t.teardown(receiver.close);
  const configFile = join(dir, 'agent.yaml');
  const writeConfig = (level: string, extra = '') =>
    writeFileSync(
      configFile,
      localAgentYaml({
        serverUrl: receiver.url,
        agentKey,
        stateDir: join(dir, 'state'),
        logLevel: level,
        databases: [{ id: 'db_localpg', type: 'postgresql', intervalSeconds: 1, connection: '{ host: 127.0.0.1, port: 5432, database: test, username: postgres }' }],
        extra,
      }),
    );
  writeConfig('debug');
  const agent = spawnAgent({ DBMON_AGENT_CONFIG: configFile });
  t.teardown(() => agent.child.kill('SIGKILL'));
  const stored = () => receiver.storedSamples().filter((sample) => sample.database_id === 'db_localpg').length;
  await waitUntil('samples of the local database', async () => stored() >= 2, 90_000);
  t.notMatch(JSON.stringify(agent.lines), agentKey, 'the key is never logged');
  t.notOk(agent.lines.some((line) => line.setting !== undefined), 'no weakened default is reported when none is set');

  const second = spawnAgent({ DBMON_AGENT_CONFIG: configFile });
  t.equal((await second.exited).code, 1, 'a second agent on the same state directory refuses to start');
  t.ok(second.lines.some((line) => line.msg === 'agent failed'), second.stderr());

  writeConfig('info', 'unknown_key: 1\n');
  agent.child.kill('SIGHUP');
  await waitUntil('the refused reload', async () => agent.lines.some((line) => /not reloaded/.test(String(line.msg))), 30_000);
  t.match(agent.lines.find((line) => /not reloaded/.test(String(line.msg))), { error: /unknown_key: unknown key/ });

  writeConfig('info');
  const before = stored();
  agent.child.kill('SIGHUP');
  await waitUntil('the reload', async () => agent.lines.some((line) => line.msg === 'configuration reloaded'), 30_000);
  const linesAtReload = agent.lines.length;
  await waitUntil('collection to go on after the reload', async () => stored() >= before + 2, 30_000);
  t.notOk(agent.lines.slice(linesAtReload).some((line) => line.msg === 'sample spooled'), 'the new log level (info) applies');

  agent.child.kill('SIGTERM');
  t.same(await agent.exited, { code: 0, signal: null }, agent.stderr());
  t.ok(agent.lines.some((line) => line.msg === 'stopped'));
  const keys = receiver.storedSamples().map((sample) => `${sample.database_id} ${sample.timestamp}`);
  t.equal(new Set(keys).size, keys.length, 'no sample stored twice across the reload');
});

t.test('dbmon-agent run with server.allow_insecure_http: one warning at start names the setting', async (t) => {
  const dir = tempDir(t);
  const agent = spawnAgent({
    DBMON_AGENT_SERVER_URL: 'http://dbmon.invalid:7117',
    DBMON_AGENT_ALLOW_INSECURE_HTTP: 'true',
    DBMON_AGENT_KEY: agentKey,
    DBMON_AGENT_STATE_DIR: join(dir, 'state'),
  });
  t.teardown(() => agent.child.kill('SIGKILL'));
  await waitUntil('the agent to start', async () => agent.lines.some((line) => line.msg === 'agent started'), 60_000);
  const warnings = agent.lines.filter((line) => line.setting === 'server.allow_insecure_http');
  t.equal(warnings.length, 1, agent.stderr());
  t.match(warnings[0], { level: 40, server: 'http://dbmon.invalid:7117', msg: /unencrypted/ });
  agent.child.kill('SIGTERM');
  t.match(await agent.exited, { code: 0 });
});
