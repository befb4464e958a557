import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { startClientFixture } from './client-fixture.js';

t.setTimeout(300_000);

const pythonClient = fileURLToPath(new URL('../../clients/python', import.meta.url));
const root = fileURLToPath(new URL('../..', import.meta.url));

interface PythonGenerator {
  generatePython(document: unknown): Promise<Record<string, string>>;
}

/** The Python client's own unittest suite, run against the fixture's real server. */
t.test('the Python client passes its tests against a real server', async (t) => {
  const fixture = await startClientFixture(t);

  const generator = (await import(new URL('../../scripts/clients/generate-python.js', import.meta.url).href)) as PythonGenerator;
  const served: unknown = await (await fetch(`${fixture.env.DBMON_BASE_URL}/openapi.json`)).json();
  for (const [path, content] of Object.entries(await generator.generatePython(served))) {
    t.ok(readFileSync(`${root}/${path}`, 'utf8') === content, `${path} is what the served document generates (npm run clients:generate)`);
  }

  const { code, output } = await run('python3', ['-m', 'unittest', 'discover', '-s', 'tests', '-t', '.', '-v'], {
    cwd: pythonClient,
    env: { ...process.env, ...fixture.env, PYTHONPATH: pythonClient, PYTHONDONTWRITEBYTECODE: '1' },
  });
  t.equal(code, 0, 'python3 -m unittest exits 0', { output });
  t.match(output, /\nOK\n/, 'unittest reports OK, nothing skipped');
});

function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}
