import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';

const checkout = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

t.test('the benchmarks reach PostgreSQL under the agent\'s --jitless, where loading undici (WebAssembly) crashes', async (t) => {
  const script = "const { postgresAdmin } = await import('./bench/throwaway-databases.js'); console.log((await postgresAdmin('SELECT 1 AS one')).rows[0].one);";
  const { stdout } = await run(process.execPath, ['--jitless', '--no-expose-wasm', '--input-type=module', '--eval', script], { cwd: checkout });
  t.equal(stdout.trim(), '1');
});
