import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import t from 'tap';
import { ConfigError } from '../../common/config-loader.js';
import { loadServerConfig, parseServerFlags, publicUrlOf, smtpSettingsOf, weakenedDefaults } from '../../server/config.js';

const dir = mkdtempSync(join(tmpdir(), 'dbmon-config-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

let fileCount = 0;
function file(content: string, name = `config-${++fileCount}.yaml`): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

const hexKey = 'ab'.repeat(32);
const otherHexKey = 'cd'.repeat(32);
const metricsToken = 'a-long-enough-metrics-token';

function configError(t: { fail: (message: string) => void }, load: () => unknown): ConfigError {
  try {
    load();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  t.fail('expected a ConfigError');
  return new ConfigError('', '');
}

t.test('defaults', async (t) => {
  const config = loadServerConfig({}, {});
  t.same(config.server, { host: '127.0.0.1', port: 7117, body_limit_bytes: 1024 * 1024, shutdown_timeout_seconds: 10, trusted_proxies: [] });
  t.equal(config.state_dir, resolve('./data'));
  t.same(config.log, { level: 'info' });
  t.same(config.metrics, {});
  t.equal(config.secret_key, undefined, 'no secret key unless configured');
  t.equal(config.api_keys.max_live_per_organization, 1000, 'an organization holds at most 1,000 live API keys');
  t.equal(loadServerConfig({}, { DBMON_API_KEYS_MAX_LIVE_PER_ORGANIZATION: '50' }).api_keys.max_live_per_organization, 50);
  t.ok(Object.isFrozen(config), 'the config is frozen');
  t.ok(Object.isFrozen(config.server), 'deeply');
});

t.test('precedence: defaults < YAML < environment < flags', async (t) => {
  const yaml = file(`
server:
  host: 0.0.0.0
  port: 8000
  shutdown_timeout_seconds: 30
state_dir: /var/lib/from-yaml
log:
  level: warn
metrics:
  token: a-long-enough-metrics-token
`);
  const fromYaml = loadServerConfig({ config: yaml }, {});
  t.equal(fromYaml.server.host, '0.0.0.0');
  t.equal(fromYaml.server.port, 8000);
  t.equal(fromYaml.server.shutdown_timeout_seconds, 30);
  t.equal(fromYaml.server.body_limit_bytes, 1024 * 1024, 'keys absent from YAML keep their defaults');
  t.equal(fromYaml.state_dir, '/var/lib/from-yaml');
  t.equal(fromYaml.log.level, 'warn');

  const viaEnvPath = loadServerConfig({}, { DBMON_CONFIG: yaml });
  t.equal(viaEnvPath.server.port, 8000, 'DBMON_CONFIG names the YAML file too');

  const otherYaml = file('server:\n  port: 9000\n');
  t.equal(loadServerConfig({ config: otherYaml }, { DBMON_CONFIG: yaml }).server.port, 9000, '--config wins over DBMON_CONFIG');
  t.equal(loadServerConfig({}, { DBMON_CONFIG: '' }).server.port, 7117, 'an empty DBMON_CONFIG is ignored');

  const env = { DBMON_PORT: '8100', DBMON_LOG_LEVEL: 'debug', DBMON_STATE_DIR: '/srv/from-env', DBMON_BODY_LIMIT_BYTES: '2048' };
  const fromEnv = loadServerConfig({ config: yaml }, env);
  t.equal(fromEnv.server.port, 8100, 'environment beats YAML');
  t.equal(typeof fromEnv.server.port, 'number', 'environment strings are read as numbers');
  t.equal(fromEnv.log.level, 'debug');
  t.equal(fromEnv.state_dir, '/srv/from-env');
  t.equal(fromEnv.server.body_limit_bytes, 2048);
  t.equal(fromEnv.server.host, '0.0.0.0', 'YAML values the environment does not set stay');
  t.equal(fromEnv.server.shutdown_timeout_seconds, 30);

  const fromFlags = loadServerConfig(
    parseServerFlags(['--config', yaml, '--port', '8200', '--host', '10.0.0.1', '--log-level', 'error', '--state-dir', 'relative/state']),
    env,
  );
  t.equal(fromFlags.server.port, 8200, 'flags beat the environment');
  t.equal(fromFlags.server.host, '10.0.0.1');
  t.equal(fromFlags.log.level, 'error');
  t.equal(fromFlags.state_dir, resolve('relative/state'), 'the state directory is made absolute');
  t.equal(fromFlags.server.body_limit_bytes, 2048, 'environment values no flag sets stay');

  t.equal(loadServerConfig({}, { DBMON_PORT: '' }).server.port, 7117, 'an empty variable is ignored');
  t.equal(loadServerConfig({}, { DBMON_PORT: '0' }).server.port, 0, 'port 0 (any free port) is allowed');
  t.equal(loadServerConfig({}, { DBMON_HOST: '::', DBMON_METRICS_TOKEN: metricsToken }).server.host, '::', 'an IPv6 wildcard host survives scalar parsing');
  t.equal(loadServerConfig({}, { DBMON_HOST: '::1' }).server.host, '::1');
  t.throws(() => parseServerFlags(['--prot', '1']), 'unknown flags are refused');
});

t.test('secrets: direct, from an environment file, from a YAML file', async (t) => {
  const keyFile = file(`${hexKey}\n`, 'secret.key');
  t.equal(loadServerConfig({}, { DBMON_SECRET_KEY_FILE: keyFile }).secret_key, hexKey, 'DBMON_SECRET_KEY_FILE is read and trimmed');
  t.equal(
    loadServerConfig({}, { DBMON_SECRET_KEY: otherHexKey, DBMON_SECRET_KEY_FILE: keyFile }).secret_key,
    otherHexKey,
    'the direct variable wins over the file',
  );

  const yamlWithFile = file(`secret_key_file: ${keyFile}\n`);
  t.equal(loadServerConfig({ config: yamlWithFile }, {}).secret_key, hexKey, 'YAML secret_key_file is read');
  t.equal(loadServerConfig({ config: yamlWithFile }, { DBMON_SECRET_KEY: otherHexKey }).secret_key, otherHexKey, 'environment beats the YAML file');

  const base64Key = Buffer.alloc(32, 7).toString('base64');
  t.equal(loadServerConfig({}, { DBMON_SECRET_KEY: base64Key }).secret_key, base64Key, 'base64 keys are accepted');
  const digits = '1'.repeat(64);
  t.equal(loadServerConfig({}, { DBMON_SECRET_KEY: digits }).secret_key, digits, 'an all-digit hex key stays a string');

  const tokenFile = file('a-metrics-token-of-some-length\n', 'metrics.token');
  t.equal(loadServerConfig({ config: file(`metrics:\n  token_file: ${tokenFile}\n`) }, {}).metrics.token, 'a-metrics-token-of-some-length');
  t.equal(loadServerConfig({}, { DBMON_METRICS_TOKEN_FILE: tokenFile }).metrics.token, 'a-metrics-token-of-some-length');

  const missing = configError(t, () => loadServerConfig({}, { DBMON_SECRET_KEY_FILE: join(dir, 'absent.key') }));
  t.equal(missing.key, 'DBMON_SECRET_KEY_FILE');
  t.match(missing.message, /ENOENT/);
  const missingYaml = configError(t, () => loadServerConfig({ config: file(`secret_key_file: ${join(dir, 'absent.key')}\n`) }, {}));
  t.equal(missingYaml.key, 'secret_key_file');

  const short = configError(t, () => loadServerConfig({}, { DBMON_SECRET_KEY: 'too-short' }));
  t.equal(short.key, 'secret_key');
  t.notMatch(short.message, /too-short/, 'the message does not repeat the secret');
  const shortToken = configError(t, () => loadServerConfig({}, { DBMON_METRICS_TOKEN: 'short' }));
  t.equal(shortToken.key, 'metrics.token');
});

t.test('invalid values name the key', async (t) => {
  const cases: Array<[string, () => unknown, string]> = [
    ['port 70000 from the environment', () => loadServerConfig({}, { DBMON_PORT: '70000' }), 'server.port'],
    ['port 70000 from YAML', () => loadServerConfig({ config: file('server:\n  port: 70000\n') }, {}), 'server.port'],
    ['port from a flag', () => loadServerConfig({ port: '-1' }, {}), 'server.port'],
    ['non-numeric port', () => loadServerConfig({}, { DBMON_PORT: 'abc' }), 'server.port'],
    ['fractional port', () => loadServerConfig({}, { DBMON_PORT: '80.5' }), 'server.port'],
    ['unknown YAML key', () => loadServerConfig({ config: file('server:\n  prot: 80\n') }, {}), 'server.prot'],
    ['unknown top-level key', () => loadServerConfig({ config: file('listen: 80\n') }, {}), 'listen'],
    ['log level loud', () => loadServerConfig({}, { DBMON_LOG_LEVEL: 'loud' }), 'log.level'],
    ['log level from a flag', () => loadServerConfig({ 'log-level': 'loud' }, {}), 'log.level'],
    ['body limit too small', () => loadServerConfig({}, { DBMON_BODY_LIMIT_BYTES: '10' }), 'server.body_limit_bytes'],
    ['shutdown timeout zero', () => loadServerConfig({}, { DBMON_SHUTDOWN_TIMEOUT_SECONDS: '0' }), 'server.shutdown_timeout_seconds'],
    ['server is not a mapping', () => loadServerConfig({ config: file('server: 7117\n') }, {}), 'server'],
    ['missing config file', () => loadServerConfig({ config: join(dir, 'absent.yaml') }, {}), 'config'],
    ['invalid YAML', () => loadServerConfig({ config: file('server:\n  port: [1, 2\n') }, {}), 'config'],
    ['YAML that is not a mapping', () => loadServerConfig({ config: file('- a\n- b\n') }, {}), 'config'],
  ];
  for (const [name, load, key] of cases) {
    const error = configError(t, load);
    t.equal(error.key, key, name);
    t.match(error.message, new RegExp(`^${key.replace(/\./g, '\\.')}: `), `${name}: the message starts with the key`);
  }

  const unreadable = file('server:\n  port: 1\n', 'unreadable.yaml');
  chmodSync(unreadable, 0o000);
  t.teardown(() => chmodSync(unreadable, 0o600));
  if (process.getuid?.() === 0) {
    t.comment('running as root: an unreadable file is still readable, checking a directory instead');
    const error = configError(t, () => loadServerConfig({ config: dir }, {}));
    t.equal(error.key, 'config');
    t.match(error.message, /EISDIR/);
  } else {
    const error = configError(t, () => loadServerConfig({ config: unreadable }, {}));
    t.equal(error.key, 'config');
    t.match(error.message, /EACCES/);
    t.match(error.message, unreadable, 'the message names the file');
  }

  t.same(loadServerConfig({ config: file('') }, {}).server.port, 7117, 'an empty YAML file means all defaults');
  t.same(loadServerConfig({ config: file('# only a comment\n') }, {}).server.port, 7117);
});

t.test('text-valued keys stay text and relative secret files follow the YAML file', (t) => {
  t.equal(loadServerConfig({}, { DBMON_HOST: '0', DBMON_METRICS_TOKEN: metricsToken }).server.host, '0', 'a host named 0 is not the number 0');
  t.equal(loadServerConfig({ host: 'true' }, { DBMON_METRICS_TOKEN: metricsToken }).server.host, 'true');
  const dir = mkdtempSync(join(tmpdir(), 'dbmon-config-rel-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'key.hex'), `${'ab'.repeat(32)}\n`);
  writeFileSync(join(dir, 'server.yaml'), 'secret_key_file: key.hex\n');
  t.equal(loadServerConfig({ config: join(dir, 'server.yaml') }, {}).secret_key, 'ab'.repeat(32));
  t.end();
});

t.test('metrics.token is required unless the server listens on loopback only', async (t) => {
  for (const host of ['127.0.0.1', '127.0.0.2', '::1', 'localhost', '::ffff:127.0.0.1']) {
    t.equal(loadServerConfig({ host }, {}).metrics.token, undefined, `${host}: no token needed`);
  }
  for (const host of ['0.0.0.0', '::', '10.0.0.1', 'dbmon.example.com']) {
    const error = configError(t, () => loadServerConfig({ host }, {}));
    t.equal(error.key, 'metrics.token', `${host}: the error names the key`);
    t.match(error.message, 'DBMON_METRICS_TOKEN', 'and how to set it');
    t.equal(loadServerConfig({ host }, { DBMON_METRICS_TOKEN: metricsToken }).metrics.token, metricsToken, `${host} with a token`);
  }
});

t.test('attack: a server on loopback behind a reverse proxy would serve /metrics to whoever reaches the proxy', async (t) => {
  const behindProxy = [
    { what: 'trusted proxies', env: { DBMON_TRUSTED_PROXIES: '127.0.0.1' } },
    { what: 'a public URL beyond loopback', env: { DBMON_PUBLIC_URL: 'https://dbmon.example.com' } },
  ];
  for (const { what, env } of behindProxy) {
    const error = configError(t, () => loadServerConfig({ host: '127.0.0.1' }, env));
    t.equal(error.key, 'metrics.token', `${what}: the error names the key`);
    t.match(error.message, 'reverse proxy', `${what}: and says why`);
    t.equal(loadServerConfig({ host: '127.0.0.1' }, { ...env, DBMON_METRICS_TOKEN: metricsToken }).metrics.token, metricsToken, `${what} with a token`);
  }
  const onLoopback = loadServerConfig({ host: '127.0.0.1' }, { DBMON_PUBLIC_URL: 'http://localhost:7117' });
  t.equal(onLoopback.metrics.token, undefined, 'a loopback public URL needs none');
  t.same(weakenedDefaults(onLoopback).map((weakened) => weakened.setting), ['metrics.token'], 'but its absence is named at start');
});

t.test('server.trusted_proxies: a YAML list, or DBMON_TRUSTED_PROXIES separated by commas', async (t) => {
  const yaml = file('server:\n  trusted_proxies:\n    - 10.0.0.0/8\n    - ::1\n');
  const token = { DBMON_METRICS_TOKEN: metricsToken };
  t.same(loadServerConfig({ config: yaml }, token).server.trusted_proxies, ['10.0.0.0/8', '::1']);
  t.same(loadServerConfig({}, { ...token, DBMON_TRUSTED_PROXIES: '192.0.2.1, 2001:db8::/32' }).server.trusted_proxies, ['192.0.2.1', '2001:db8::/32']);
  const error = configError(t, () => loadServerConfig({}, { DBMON_TRUSTED_PROXIES: '10.0.0.0/8,proxy.internal' }));
  t.match(error.key, /^server\.trusted_proxies/, 'a bad entry names the key');
  t.match(error.message, 'proxy.internal', 'and the entry');
});

t.test('server.public_url: an http or https origin, by default the listen address', async (t) => {
  t.equal(publicUrlOf(loadServerConfig({}, { DBMON_PORT: '8080' })), 'http://127.0.0.1:8080');
  t.equal(publicUrlOf(loadServerConfig({}, { DBMON_HOST: '::1' })), 'http://[::1]:7117');
  t.equal(publicUrlOf(loadServerConfig({}, { DBMON_PUBLIC_URL: 'https://dbmon.example.com:443/', DBMON_METRICS_TOKEN: metricsToken })), 'https://dbmon.example.com');
  t.equal(publicUrlOf(loadServerConfig({}, { DBMON_PUBLIC_URL: 'http://[::1]:8080' })), 'http://[::1]:8080', 'on loopback, no token needed');
  for (const wrong of ['ftp://dbmon.example.com', 'https://dbmon.example.com/base', 'https://user:pw@dbmon.example.com', 'dbmon.example.com']) {
    t.throws(() => loadServerConfig({}, { DBMON_PUBLIC_URL: wrong }), ConfigError, wrong);
  }
});

t.test('email: smtp_url (a secret: DBMON_EMAIL_SMTP_URL or _FILE) needs from; errors never repeat the URL', async (t) => {
  t.same(loadServerConfig({}, {}).email, {}, 'no mail by default');
  t.equal(smtpSettingsOf(loadServerConfig({}, {})), undefined);
  const smtpUrl = 'smtps://dbmon%40example.com:s3cret%2Fpw@mail.example.com:465';
  const config = loadServerConfig({}, { DBMON_EMAIL_SMTP_URL: smtpUrl, DBMON_EMAIL_FROM: 'dbmon <dbmon@example.com>' });
  t.same(smtpSettingsOf(config), { smtpUrl, from: 'dbmon <dbmon@example.com>' });
  const secretFile = file(`${smtpUrl}\n`);
  t.equal(loadServerConfig({}, { DBMON_EMAIL_SMTP_URL_FILE: secretFile, DBMON_EMAIL_FROM: 'dbmon@example.com' }).email.smtp_url, smtpUrl, 'from a file');
  t.equal(loadServerConfig({ config: file('email:\n  smtp_url: smtp://127.0.0.1:25\n  from: dbmon@example.com\n') }, {}).email.smtp_url, 'smtp://127.0.0.1:25');

  const missingFrom = configError(t, () => loadServerConfig({}, { DBMON_EMAIL_SMTP_URL: smtpUrl }));
  t.equal(missingFrom.key, 'email.from');
  for (const wrong of ['https://mail.example.com', 'smtp://user:s3cret@mail.example.com/path', 'smtp://user:s3cret@mail.example.com?x=1', 'mail.example.com']) {
    const error = configError(t, () => loadServerConfig({}, { DBMON_EMAIL_SMTP_URL: wrong, DBMON_EMAIL_FROM: 'dbmon@example.com' }));
    t.equal(error.key, 'email.smtp_url', wrong);
    t.notMatch(error.message, 's3cret', 'the password is not repeated');
  }
  for (const wrong of ['dbmon', 'dbmon <dbmon@example.com', 'a@b.c\r\nBcc: x@y.z']) {
    t.equal(configError(t, () => loadServerConfig({}, { DBMON_EMAIL_FROM: wrong })).key, 'email.from', JSON.stringify(wrong));
  }
});
