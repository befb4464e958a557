import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import { captureLogger } from '../helpers/capture-logger.js';
import { childEnv, typescriptLoaderArgs } from '../helpers/spawn-server.js';

const run = promisify(execFile);
const loggerEntry = new URL('../../common/logger.ts', import.meta.url).pathname;
const script = `const { createLogger } = await import(${JSON.stringify(loggerEntry)}); createLogger('info').info({ port: 7117, token: 'sekrit' }, 'hello there');`;
const nodeCommand = [process.execPath, ...typescriptLoaderArgs(), '--input-type=module', '-e', script];

t.test('JSON lines when stdout is not a terminal (journald, pipes)', async (t) => {
  const { stdout } = await run(nodeCommand[0]!, nodeCommand.slice(1), { env: childEnv({}) });
  const entry = JSON.parse(stdout) as Record<string, unknown>;
  t.match(entry, { level: 30, msg: 'hello there', port: 7117, token: '[redacted]' });
});

t.test('human-readable lines when stdout is a terminal', async (t) => {
  const quoted = nodeCommand.map((arg) => `'${arg.replace(/'/g, `'\\''`)}'`).join(' ');
  // script(1) runs the command on a pseudo-terminal.
  const { stdout } = await run('script', ['-qec', quoted, '/dev/null'], { env: childEnv({ NO_COLOR: '1', TERM: 'dumb' }) });
  t.match(stdout.trim(), /^\d\d:\d\d:\d\d\.\d{3} INFO {2}hello there port=7117 token=\[redacted\]$/);
});

t.test('secret fields are redacted at any depth: nested objects, arrays, errors, records of a child logger', async (t) => {
  const log = captureLogger();
  const secrets = Array.from({ length: 11 }, (_, index) => `s3cret-value-${index}`);
  log.logger.info({ assignment: { connection: { host: 'db.internal', password: secrets[0], password_set: true } } }, 'assignment');
  log.logger.info({ databases: [{ id: 'db_1', connection: { password: secrets[1] } }, [{ api_key: secrets[2] }]] }, 'arrays');
  const httpError = Object.assign(new Error('request failed'), { config: { url: '/v1/x', headers: { Authorization: `Bearer ${secrets[3]}`, Cookie: `sid=${secrets[4]}` } } });
  log.logger.error({ err: httpError }, 'an error with a request config');
  log.logger.error({ error: httpError, detail: { response: { headers: { 'set-cookie': [secrets[5]] } } } }, 'an error under another key');
  log.logger.error(Object.assign(new Error('direct'), { options: { clientSecret: secrets[6] } }));
  log.logger.info({ a: { b: { c: { d: { e: { f: { token: secrets[7], 'X-Api-Key': secrets[8] } } } } } } }, 'deep');
  log.logger.child({ component: 'agent' }).info({ agent: { agent_key: secrets[9], privateKey: secrets[10] } }, 'child');
  const cyclic: Record<string, unknown> = { secret: 'cyclic-secret' };
  cyclic.self = cyclic;
  log.logger.info({ cyclic }, 'cycle');

  const text = log.text();
  for (const secret of [...secrets, 'cyclic-secret']) t.notOk(text.includes(secret), `${secret} is not in the log`);
  const [assignment, arrays, withConfig, otherKey, direct, deep] = log.lines;
  t.match(assignment, { assignment: { connection: { host: 'db.internal', password: '[redacted]', password_set: true } } }, 'other fields stay');
  t.match(arrays, { databases: [{ id: 'db_1', connection: { password: '[redacted]' } }, [{ api_key: '[redacted]' }]] });
  t.match(withConfig, { err: { type: 'Error', message: 'request failed', stack: /request failed/, config: { url: '/v1/x', headers: { Authorization: '[redacted]' } } } });
  t.match(otherKey, { error: { message: 'request failed' }, detail: { response: { headers: { 'set-cookie': '[redacted]' } } } });
  t.match(direct, { msg: 'direct', err: { type: 'Error', options: { clientSecret: '[redacted]' } } });
  t.match(deep, { a: { b: { c: { d: { e: { f: { token: '[redacted]' } } } } } } });
  t.match(log.lines.find((line) => line.msg === 'child'), { component: 'agent', agent: { agent_key: '[redacted]', privateKey: '[redacted]' } });
});
