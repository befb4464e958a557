import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';

// The committed client code generated from the OpenAPI document matches what the built server
// (npm test builds dist first) serves now: a route cannot change without its clients.
t.test('the generated client files are fresh', async (t) => {
  const generator = fileURLToPath(new URL('../../scripts/clients/generate.js', import.meta.url));
  const run = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = execFile(process.execPath, [generator, '--check'], { timeout: 60_000 }, (_error, _stdout, stderr) => resolve({ code: child.exitCode, stderr }));
  });
  t.equal(run.code, 0, run.stderr);
});
