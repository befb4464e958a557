import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface AgentProcess {
  child: ChildProcess;
  /** Every JSON log line the agent wrote so far, parsed. */
  lines: Record<string, unknown>[];
  /** Everything it wrote to stderr. */
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const mainEntry = fileURLToPath(new URL('../../agent/main.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Runs `dbmon-agent run` from the TypeScript source, as a real child process (so it can be
 * killed with SIGKILL), through the same TypeScript loader that runs the tests; `nodeArgs` go
 * to node after the loader (e.g. an `--import` of a fixture).
 */
export function spawnAgent(env: Record<string, string>, nodeArgs: readonly string[] = []): AgentProcess {
  const loader = process.execArgv.find((arg) => arg.includes('@tapjs/typescript'));
  const child = spawn(process.execPath, [...(loader ? [loader] : []), ...nodeArgs, mainEntry, 'run'], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH, TS_NODE_TRANSPILE_ONLY: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  let pending = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    const complete = pending.split('\n');
    pending = complete.pop()!;
    for (const line of complete) {
      if (line.trim() === '') continue;
      try {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        lines.push({ msg: line, unparsed: true });
      }
    }
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, lines, stderr: () => stderr, exited };
}
