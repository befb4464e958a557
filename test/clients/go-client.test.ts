import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import t from 'tap';
import { tempDir } from '../helpers/temp-dir.js';
import { startClientFixture } from './client-fixture.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const goClient = join(repoRoot, 'clients/go');

interface Run {
  code: number | null;
  output: string;
}

/** Runs a Go tool in clients/go with `env` (its own caches, nothing fetched) and collects stdout and stderr together. */
function run(command: string, args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: goClient, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('error', (error) => reject(new Error(`${command}: ${error.message} (scripts/setup-services.sh installs golang-go)`)));
    child.once('close', (code) => resolve({ code, output }));
  });
}

t.test('the Go client: generated from the served document, vetted, gofmt-clean, its tests passing against a real server', async (t) => {
  const { env: fixture } = await startClientFixture(t);
  const home = tempDir(t, 'dbmon-go-');
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    GOCACHE: join(home, 'cache'),
    GOPATH: join(home, 'gopath'),
    GOPROXY: 'off',
    ...fixture,
  };

  const vet = await run('go', ['vet', './...'], env);
  t.equal(vet.code, 0, `go vet ./...\n${vet.output}`);
  const gofmt = await run('gofmt', ['-l', '.'], env);
  t.same([gofmt.code, gofmt.output], [0, ''], 'gofmt -l . lists no file');
  const tests = await run('go', ['test', '-count=1', '-v', './...'], env);
  t.equal(tests.code, 0, `go test ./...\n${tests.output}`);
  t.notMatch(tests.output, /--- SKIP/, 'no test skipped: each got the fixture');
  t.match(tests.output, /--- PASS: TestA429IsRetriedAfterItsRetryAfter/);

  // The generated files are those of the document this server serves.
  const document = (await (await fetch(`${fixture.DBMON_BASE_URL}/openapi.json`)).json()) as unknown;
  const generator = (await import(pathToFileURL(join(repoRoot, 'scripts/clients/generate-go.js')).href)) as {
    generateGo: (document: unknown) => Promise<Record<string, string>>;
  };
  for (const [path, content] of Object.entries(await generator.generateGo(document))) {
    t.equal(readFileSync(join(repoRoot, path), 'utf8'), content, `${path} is fresh (npm run clients:generate)`);
  }
});
