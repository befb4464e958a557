import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { parseJson, spawnServer } from '../helpers/spawn-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { waitUntil } from '../helpers/wait-until.js';

// Each test spawns real servers; on a busy machine that takes longer than the default file timeout.
t.setTimeout(300_000);

/** How often `key` appears as a key of the record's top level: pino writes a child's bindings after its parent's, never merged. */
function keyCount(line: string, key: string): number {
  return line.split(`"${key}":`).length - 1;
}

t.test('log hygiene: no record names its component twice, no process warning', async (t) => {
  const dir = tempDir(t, 'dbmon-start-up-');
  const running = await spawnServer(t, { DBMON_STATE_DIR: dir, DBMON_AGENT_EMBEDDED: 'true', DBMON_LOG_LEVEL: 'debug' });
  const admin = JSON.parse(readFileSync(join(dir, 'initial-admin.json'), 'utf8')) as { api_key: string };
  const created = await fetch(`${running.url}/v1/databases`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin.api_key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'nowhere', type: 'postgresql', connection: { host: '127.0.0.1', port: 1, database: 'd', username: 'u' } }),
  });
  t.equal(created.status, 201);
  // The embedded agent's scheduler logs through a child logger of the agent's own.
  await waitUntil('the embedded scheduler to take the database', async () => running.stdout.some((line) => parseJson(line)?.msg === 'task added'), 30_000);
  await running.stop();
  const twice = running.stdout.filter((line) => keyCount(line, 'component') > 1);
  t.same(twice, [], 'no record has the key component twice');
  t.ok(
    running.stdout.some((line) => parseJson(line)?.msg === 'task added' && parseJson(line)?.component === 'scheduler'),
    'a child names its own component',
  );
  t.ok(
    running.stdout.some((line) => parseJson(line)?.msg === 'task added' && parseJson(line)?.agent === 'embedded'),
    'and still says it is the embedded agent',
  );
  t.same(running.stderr.filter((line) => line.includes('Warning')), [], 'no process warning');
});

t.test('the start-up log names every setting that weakens a default, at warn, one record each', async (t) => {
  const running = await spawnServer(t, {
    DBMON_STATE_DIR: tempDir(t, 'dbmon-start-up-'),
    DBMON_WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
    DBMON_TRUSTED_PROXIES: '10.0.0.0/8,0.0.0.0/0',
    DBMON_METRICS_TOKEN: 'a-long-enough-metrics-token',
  });
  await running.stop();
  const weakened = running.stdout.map(parseJson).filter((line) => line?.msg === 'a setting weakens a default');
  t.same(
    weakened.map((line) => line?.setting).sort(),
    ['server.trusted_proxies', 'webhooks.allow_private_targets'],
    'one record per setting',
  );
  t.ok(weakened.every((line) => line?.level === 40), 'at warn');
  t.ok(weakened.every((line) => typeof line?.risk === 'string' && line.risk.length > 20), 'each says what it risks');

  const defaults = await spawnServer(t, { DBMON_STATE_DIR: tempDir(t, 'dbmon-start-up-'), DBMON_METRICS_TOKEN: 'a-long-enough-metrics-token' });
  await defaults.stop();
  t.same(defaults.stdout.map(parseJson).filter((line) => line?.msg === 'a setting weakens a default'), [], 'none with the defaults and a metrics token');
});
