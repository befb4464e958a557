import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface ServerProcess {
  child: ChildProcess;
  /** stdout and stderr lines so far. */
  stdout: string[];
  stderr: string[];
  port: number;
  url: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, then waits for the exit. */
  stop: () => Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The compiled server and CLI (`npm test` builds before it runs the tests; after a change, `npm run build`). */
export const serverEntry = fileURLToPath(new URL('../../dist/server/main.js', import.meta.url));
export const cliEntry = fileURLToPath(new URL('../../dist/server/cli.js', import.meta.url));

/** The `node` arguments that load the TypeScript loader the tests run under. */
export function typescriptLoaderArgs(): string[] {
  const loader = process.execArgv.find((arg) => arg.includes('@tapjs/typescript'));
  return loader ? [loader] : [];
}

/** Arguments for `node` to run `entry`: a .ts file through the TypeScript loader. */
export function nodeArgs(entry: string): string[] {
  return entry.endsWith('.ts') ? [...typescriptLoaderArgs(), entry] : [entry];
}

/** The environment for a child running a .ts entry (the loader only transpiles: the tests type-check). */
export const childEnv = (env: Record<string, string>): Record<string, string> => ({ PATH: process.env.PATH ?? '', TS_NODE_TRANSPILE_ONLY: '1', ...env });

export interface SpawnedProcess {
  child: ChildProcess;
  stdout: string[];
  stderr: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Runs `entry` with `env` (and PATH) and collects its output by line; killed in the test's teardown if still running.
 * `user` runs it as another user (the test must run as root).
 */
export function spawnProcess(
  t: { teardown: (fn: () => unknown) => void },
  env: Record<string, string>,
  entry = serverEntry,
  user?: { uid: number; gid: number },
): SpawnedProcess {
  const child = spawn(process.execPath, nodeArgs(entry), { env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'], ...user });
  const stdout: string[] = [];
  const stderr: string[] = [];
  const collect = (sink: string[]) => {
    let pending = '';
    return (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop()!;
      sink.push(...lines);
    };
  };
  child.stdout!.on('data', collect(stdout));
  child.stderr!.on('data', collect(stderr));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  return { child, stdout, stderr, exited };
}

/**
 * Starts a server process (`entry`: default the checkout's compiled dist/server/main.js; or an
 * installed one) on port 0 and waits for its 'dbmon server listening' line; killed in the
 * test's teardown if still running.
 */
export async function spawnServer(t: { teardown: (fn: () => unknown) => void }, env: Record<string, string>, entry = serverEntry): Promise<ServerProcess> {
  const { child, stdout, stderr, exited } = spawnProcess(
    t,
    { DBMON_PORT: '0', DBMON_LOG_LEVEL: 'info', DBMON_AGENT_EMBEDDED: 'false', ...env },
    entry,
  );
  // Generous: a start on a loaded two-core machine was seen to take over 30 s (module loading).
  const deadline = Date.now() + 60_000;
  for (;;) {
    const listening = stdout.map(parseJson).find((line) => line?.msg === 'dbmon server listening');
    if (listening !== undefined) {
      const port = listening.port as number;
      return {
        child,
        stdout,
        stderr,
        port,
        url: `http://127.0.0.1:${port}`,
        exited,
        stop: async () => {
          child.kill('SIGTERM');
          return exited;
        },
      };
    }
    if (child.exitCode !== null) throw new Error(`server exited early (${child.exitCode}): ${stderr.join('\n')}`);
    if (Date.now() > deadline) throw new Error(`server did not start: ${stdout.join('\n')} ${stderr.join('\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export function parseJson(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
