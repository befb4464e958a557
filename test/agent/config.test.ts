import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import t from 'tap';
import { loadAgentConfig, parseAgentArgs } from '../../agent/config.js';
import { ConfigError } from '../../common/config-loader.js';
import { tempDir } from '../helpers/temp-dir.js';

// The validate test starts the TypeScript entry five times, which takes minutes on a loaded machine.
t.setTimeout(300_000);

const minimal = { DBMON_AGENT_SERVER_URL: 'http://127.0.0.1:7117', DBMON_AGENT_KEY: 'env-key' };

function write(dir: string, name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

t.test('defaults', async (t) => {
  const config = loadAgentConfig({}, minimal);
  t.match(config, {
    server: { url: 'http://127.0.0.1:7117', agent_key: 'env-key', timeout_seconds: 15, assignments_refresh_seconds: 60 },
    state_dir: resolve('./agent-data'),
    spool: { max_samples: 100_000 },
    delivery: { backoff_initial_seconds: 1, backoff_max_seconds: 60 },
    log: { level: 'info' },
    collection: { top_statements: 100, largest_tables: 20 },
    databases: [],
  });
  t.ok(Object.isFrozen(config) && Object.isFrozen(config.server), 'frozen');
});

t.test('precedence: defaults < YAML < environment < flags', async (t) => {
  const dir = tempDir(t);
  const yaml = write(
    dir,
    'agent.yaml',
    ['server:', '  url: https://yaml:1/', '  agent_key: yaml-key', 'state_dir: /yaml', 'spool:', '  max_samples: 50', 'log:', '  level: warn'].join('\n'),
  );
  const fromYaml = loadAgentConfig({ config: yaml }, {});
  t.match(fromYaml, { server: { url: 'https://yaml:1', agent_key: 'yaml-key' }, state_dir: '/yaml', spool: { max_samples: 50 }, log: { level: 'warn' } });

  const env = {
    DBMON_AGENT_CONFIG: yaml,
    DBMON_AGENT_SERVER_URL: 'https://env:2',
    DBMON_AGENT_STATE_DIR: '/env',
    DBMON_AGENT_LOG_LEVEL: 'debug',
    DBMON_AGENT_SPOOL_MAX_SAMPLES: '70',
    DBMON_AGENT_BACKOFF_MAX_SECONDS: '2.5',
    DBMON_AGENT_TOP_STATEMENTS: '25',
  };
  t.match(loadAgentConfig({}, env), {
    server: { url: 'https://env:2', agent_key: 'yaml-key' },
    state_dir: '/env',
    spool: { max_samples: 70 },
    delivery: { backoff_max_seconds: 2.5 },
    log: { level: 'debug' },
    collection: { top_statements: 25, largest_tables: 20 },
  }, 'DBMON_AGENT_CONFIG names the file; environment wins over it');
  t.throws(() => loadAgentConfig({}, { ...minimal, DBMON_AGENT_LARGEST_TABLES: '101' }), ConfigError, 'more tables than a sample holds well');

  const flags = parseAgentArgs(['run', '--server-url', 'https://flag:3', '--state-dir', '/flag', '--log-level', 'error']).flags;
  t.match(loadAgentConfig(flags, env), { server: { url: 'https://flag:3' }, state_dir: '/flag', log: { level: 'error' } }, 'flags win');
});

t.test('the agent key: YAML file, *_FILE, systemd credential, environment', async (t) => {
  const dir = tempDir(t);
  const keyFile = write(dir, 'key', 'file-key\n');
  const credentials = join(dir, 'credentials');
  mkdirSync(credentials);
  write(credentials, 'agent-key', 'credential-key\n');
  const url = { DBMON_AGENT_SERVER_URL: 'https://s' };
  const yaml = write(dir, 'agent.yaml', `server:\n  agent_key_file: ${keyFile}\n`);

  t.equal(loadAgentConfig({ config: yaml }, url).server.agent_key, 'file-key', 'agent_key_file in YAML');
  t.equal(loadAgentConfig({}, { ...url, DBMON_AGENT_KEY_FILE: keyFile }).server.agent_key, 'file-key', 'DBMON_AGENT_KEY_FILE');
  t.equal(loadAgentConfig({}, { ...url, CREDENTIALS_DIRECTORY: credentials }).server.agent_key, 'credential-key', '$CREDENTIALS_DIRECTORY/agent-key');
  t.equal(
    loadAgentConfig({ config: yaml }, { ...url, CREDENTIALS_DIRECTORY: credentials }).server.agent_key,
    'credential-key',
    'the credential wins over the YAML file',
  );
  t.equal(
    loadAgentConfig({}, { ...url, CREDENTIALS_DIRECTORY: credentials, DBMON_AGENT_KEY: 'env-key' }).server.agent_key,
    'env-key',
    'the environment wins over the credential',
  );
  t.equal(
    loadAgentConfig({}, { ...url, CREDENTIALS_DIRECTORY: credentials, DBMON_AGENT_KEY_FILE: keyFile }).server.agent_key,
    'file-key',
    'DBMON_AGENT_KEY_FILE wins over the credential',
  );
  t.throws(
    () => loadAgentConfig({}, { ...url, CREDENTIALS_DIRECTORY: join(dir, 'empty') }),
    { key: 'server.agent_key', message: /is required/ },
    'a credentials directory without agent-key is no key',
  );
  t.throws(() => loadAgentConfig({}, { ...url, DBMON_AGENT_KEY_FILE: join(dir, 'missing') }), {
    key: 'DBMON_AGENT_KEY_FILE',
    message: /ENOENT/,
  });
});

t.test('local databases: connection kept on this host, password from a file', async (t) => {
  const dir = tempDir(t);
  const passwordFile = write(dir, 'pw', 'secret\n');
  const yaml = write(
    dir,
    'agent.yaml',
    `databases:
  - id: db_local1
    type: postgresql
    connection: { host: 127.0.0.1, port: 5432, database: test, username: dbmon, password_file: ${passwordFile} }
  - id: db_local2
    name: shop
    type: mariadb
    interval_seconds: 10
    connection: { host: 127.0.0.1, port: 3306, database: shop, username: root, ssl: true }
`,
  );
  t.same(loadAgentConfig({ config: yaml }, minimal).databases, [
    {
      id: 'db_local1',
      name: 'db_local1',
      type: 'postgresql',
      interval_seconds: 60,
      connection: { host: '127.0.0.1', port: 5432, database: 'test', username: 'dbmon', ssl: false, password: 'secret', ambientCredentials: true },
    },
    {
      id: 'db_local2',
      name: 'shop',
      type: 'mariadb',
      interval_seconds: 10,
      connection: { host: '127.0.0.1', port: 3306, database: 'shop', username: 'root', ssl: true, password: null, ambientCredentials: true },
    },
  ]);
  const both = write(dir, 'both.yaml', `databases:\n  - id: db_x\n    type: mysql\n    connection: { host: h, port: 1, database: d, username: u, password: p, password_file: ${passwordFile} }\n`);
  t.throws(() => loadAgentConfig({ config: both }, minimal), { key: 'databases.0.connection.password_file', message: /not both/ });
});

t.test('config/agent.example.yaml is valid as shipped', async (t) => {
  const example = new URL('../../config/agent.example.yaml', import.meta.url).pathname;
  const config = loadAgentConfig({ config: example }, { DBMON_AGENT_KEY: 'k' });
  t.match(config, { server: { url: 'https://dbmon.example.com', timeout_seconds: 15 }, spool: { max_samples: 100_000 }, databases: [] });
});

t.test('a bad value names its key', async (t) => {
  const dir = tempDir(t);
  const cases: [Record<string, string>, Record<string, string | undefined>, string][] = [
    [{ DBMON_AGENT_KEY: 'k' }, {}, 'server.url'],
    [{ DBMON_AGENT_SERVER_URL: 'https://s' }, {}, 'server.agent_key'],
    [{ ...minimal, DBMON_AGENT_SERVER_URL: 'ftp://s' }, {}, 'server.url'],
    [minimal, { 'log-level': 'loud' }, 'log.level'],
    [{ ...minimal, DBMON_AGENT_SPOOL_MAX_SAMPLES: '0' }, {}, 'spool.max_samples'],
    [{ ...minimal, DBMON_AGENT_SPOOL_MAX_SAMPLES: 'many' }, {}, 'spool.max_samples'],
    [minimal, { config: write(dir, 'unknown.yaml', 'spool:\n  max_sample: 5\n') }, 'spool.max_sample'],
    [minimal, { config: write(dir, 'db.yaml', 'databases:\n  - id: nope\n    type: postgresql\n') }, 'databases.0.id'],
    [minimal, { config: join(dir, 'missing.yaml') }, 'config'],
  ];
  for (const [env, flags, key] of cases) {
    try {
      loadAgentConfig(flags, env);
      t.fail(`${key}: expected an error`);
    } catch (error) {
      t.type(error, ConfigError);
      t.equal((error as ConfigError).key, key, `${key}: ${(error as Error).message}`);
    }
  }
});

t.test('a plain http:// server URL is refused except to loopback, unless server.allow_insecure_http', async (t) => {
  const dir = tempDir(t);
  for (const url of ['http://dbmon.example.com:7117', 'http://10.0.0.5:7117', 'http://[2001:db8::5]:7117', 'http://127.0.0.1.example.com', 'http://localhost.example.com', 'http://agent.localhost']) {
    t.throws(
      () => loadAgentConfig({}, { ...minimal, DBMON_AGENT_SERVER_URL: url }),
      { key: 'server.url', message: /server\.allow_insecure_http/ },
      `${url} is refused, naming the key that allows it`,
    );
  }
  for (const url of ['http://127.0.0.1:7117', 'http://127.8.9.10', 'http://localhost:7117', 'http://LOCALHOST', 'http://[::1]:7117', 'http://[::ffff:127.0.0.1]', 'https://dbmon.example.com']) {
    t.equal(loadAgentConfig({}, { ...minimal, DBMON_AGENT_SERVER_URL: url }).server.allow_insecure_http, false, `${url} is accepted`);
  }
  const remote = { ...minimal, DBMON_AGENT_SERVER_URL: 'http://dbmon.example.com:7117' };
  t.equal(loadAgentConfig({}, { ...remote, DBMON_AGENT_ALLOW_INSECURE_HTTP: 'true' }).server.allow_insecure_http, true, 'DBMON_AGENT_ALLOW_INSECURE_HTTP allows it');
  const yaml = write(dir, 'insecure.yaml', 'server:\n  url: http://dbmon.example.com:7117\n  allow_insecure_http: true\n');
  t.match(loadAgentConfig({ config: yaml }, { DBMON_AGENT_KEY: 'k' }).server, { url: 'http://dbmon.example.com:7117', allow_insecure_http: true }, 'so does the YAML key');
  t.throws(() => loadAgentConfig({}, { ...remote, DBMON_AGENT_ALLOW_INSECURE_HTTP: 'maybe' }), { key: 'server.allow_insecure_http', message: /must be true or false/ });
});

t.test('dbmon-agent validate: one line and exit code 78 on a bad value, ok and 0 otherwise', async (t) => {
  const dir = tempDir(t);
  const loader = process.execArgv.find((arg) => arg.includes('@tapjs/typescript'));
  const main = new URL('../../agent/main.ts', import.meta.url).pathname;
  const run = async (args: string[], env: Record<string, string>) => {
    const child = spawn(process.execPath, [...(loader ? [loader] : []), main, ...args], {
      env: { PATH: process.env.PATH, TS_NODE_TRANSPILE_ONLY: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const status = await new Promise<number | null>((resolve) => child.once('close', resolve));
    return { status, stdout, stderr };
  };
  // In parallel: each start of the TypeScript entry takes seconds.
  const badConfig = write(dir, 'bad.yaml', 'server:\n  url: https://s\n  agent_key: k\nlog:\n  level: loud\n');
  const [bad, ok, usage, version, insecure] = await Promise.all([
    run(['validate', '--config', badConfig], {}),
    run(['validate'], minimal),
    run(['--bogus'], minimal),
    run(['--version'], {}),
    run(['run'], { ...minimal, DBMON_AGENT_SERVER_URL: 'http://dbmon.example.com:7117', DBMON_AGENT_STATE_DIR: join(dir, 'state') }),
  ]);
  t.equal(insecure.status, 78, 'run refuses a plain-HTTP remote server');
  t.match(insecure.stderr, /^dbmon-agent: invalid configuration: server\.url: .*server\.allow_insecure_http.*\n$/);
  t.equal(insecure.stderr.split('\n').length, 2, 'in one line');
  t.equal(bad.status, 78);
  t.equal(bad.stdout, '');
  t.match(bad.stderr, /^dbmon-agent: invalid configuration: log\.level: .+\n$/);
  t.equal(bad.stderr.split('\n').length, 2, 'one line');
  t.equal(ok.status, 0, ok.stderr);
  t.equal(ok.stdout, 'ok\n');
  t.equal(usage.status, 64, 'a bad flag is a usage error');
  t.match(version.stdout, /^dbmon-agent \d+\.\d+\.\d+\n$/);
});
