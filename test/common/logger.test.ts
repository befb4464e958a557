import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
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
