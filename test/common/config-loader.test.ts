import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { z } from 'zod';
import { ConfigError, loadLayeredConfig, type ConfigBinding } from '../../common/config-loader.js';
import { loadServerConfig } from '../../server/config.js';

const dir = mkdtempSync(join(tmpdir(), 'dbmon-config-loader-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const write = (path: string, content: string) => {
  writeFileSync(path, content, { mode: 0o600 });
  return path;
};

const credentialsDir = mkdtempSync(join(dir, 'creds-'));
write(join(credentialsDir, 'api-key'), 'from-credential\n');
write(join(credentialsDir, 'retries'), '7\n');

const schema = z.strictObject({
  api: z.strictObject({ key: z.string().optional() }).prefault({}),
  retries: z.number().int().default(3),
});
const bindings: readonly ConfigBinding[] = [
  { path: 'api.key', env: 'TEST_API_KEY', secret: true, credential: 'api-key' },
  { path: 'retries', env: 'TEST_RETRIES', flag: 'retries', credential: 'retries' },
];
const load = (env: NodeJS.ProcessEnv, options: { yaml?: string; flags?: Record<string, string> } = {}) =>
  loadLayeredConfig(schema, bindings, {
    yamlPath: options.yaml === undefined ? undefined : write(join(dir, `config-${Math.random().toString(36).slice(2)}.yaml`), options.yaml),
    env,
    flags: options.flags ?? {},
  });

t.test('a systemd credential is read from $CREDENTIALS_DIRECTORY/<name>, trimmed', async (t) => {
  const config = load({ CREDENTIALS_DIRECTORY: credentialsDir });
  t.equal(config.api.key, 'from-credential');
  t.equal(config.retries, 7, 'a non-secret credential is read as a YAML scalar');
});

t.test('precedence: YAML < credential < environment < flags', async (t) => {
  const yaml = 'api:\n  key: from-yaml\nretries: 1\n';
  t.equal(load({}, { yaml }).api.key, 'from-yaml', 'without CREDENTIALS_DIRECTORY the credential is not looked for');
  t.equal(load({ CREDENTIALS_DIRECTORY: credentialsDir }, { yaml }).api.key, 'from-credential', 'the credential beats YAML');
  t.equal(load({ CREDENTIALS_DIRECTORY: credentialsDir, TEST_API_KEY: 'from-env' }, { yaml }).api.key, 'from-env', 'the environment beats the credential');
  const envFile = write(join(dir, 'env-key'), 'from-env-file\n');
  t.equal(load({ CREDENTIALS_DIRECTORY: credentialsDir, TEST_API_KEY_FILE: envFile }).api.key, 'from-env-file', '<ENV>_FILE beats the credential');
  t.equal(load({ CREDENTIALS_DIRECTORY: credentialsDir, TEST_RETRIES: '9' }, { yaml }).retries, 9);
  t.equal(load({ CREDENTIALS_DIRECTORY: credentialsDir, TEST_RETRIES: '9' }, { yaml, flags: { retries: '11' } }).retries, 11, 'a flag beats all');
});

t.test('an absent credential falls through to YAML; an empty CREDENTIALS_DIRECTORY is ignored', async (t) => {
  const empty = mkdtempSync(join(dir, 'empty-creds-'));
  t.equal(load({ CREDENTIALS_DIRECTORY: empty }, { yaml: 'api:\n  key: from-yaml\n' }).api.key, 'from-yaml');
  t.equal(load({ CREDENTIALS_DIRECTORY: '' }, { yaml: 'retries: 2\n' }).retries, 2);
});

t.test('a YAML <key>_file below a credential is not read (under systemd it is often root-only)', async (t) => {
  const config = load({ CREDENTIALS_DIRECTORY: credentialsDir }, { yaml: `api:\n  key_file: ${join(dir, 'does-not-exist')}\n` });
  t.equal(config.api.key, 'from-credential');
  t.throws(() => load({}, { yaml: `api:\n  key_file: ${join(dir, 'does-not-exist')}\n` }), ConfigError, 'without the credential it is read (and missing)');
});

t.test('an unreadable credential is a configuration error naming the key', async (t) => {
  const odd = mkdtempSync(join(dir, 'odd-creds-'));
  mkdirSync(join(odd, 'api-key')); // a directory where the file should be
  const error = t.throws(() => load({ CREDENTIALS_DIRECTORY: odd })) as ConfigError;
  t.ok(error instanceof ConfigError);
  t.equal(error.key, 'api.key');
  t.match(error.message, /EISDIR/);
});

t.test('the server reads its secret key from the secret-key credential', async (t) => {
  const serverCredentials = mkdtempSync(join(dir, 'server-creds-'));
  const hexKey = 'ef'.repeat(32);
  write(join(serverCredentials, 'secret-key'), `${hexKey}\n`);
  t.equal(loadServerConfig({}, { CREDENTIALS_DIRECTORY: serverCredentials }).secret_key, hexKey);
  t.equal(loadServerConfig({}, { CREDENTIALS_DIRECTORY: serverCredentials, DBMON_SECRET_KEY: 'ab'.repeat(32) }).secret_key, 'ab'.repeat(32));
  t.equal(loadServerConfig({}, {}).secret_key, undefined);
});
