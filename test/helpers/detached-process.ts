import { spawn } from 'node:child_process';

export interface DetachedProcess {
  /** Everything it wrote so far, stdout and stderr together. */
  output: () => string;
}

/**
 * A third-party program (Prometheus, an exporter, pgbench) in a process group of its own, killed
 * with the whole group when the test ends, so that nothing it starts outlives the test.
 */
export function startDetached(
  t: { teardown(fn: () => unknown): void },
  command: string,
  args: readonly string[],
  env: Record<string, string> = {},
): DetachedProcess {
  const child = spawn(command, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH, ...env } });
  let output = '';
  const append = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-20_000));
  child.stdout.on('data', append);
  child.stderr.on('data', append);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('error', (error) => (output += `\n${error.message}`));
  const killGroup = () => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return false;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // It ended on its own in between.
    }
    return true;
  };
  // A test that dies of an uncaught error runs no teardown: the group goes with the test's process all the same.
  process.once('exit', killGroup);
  t.teardown(async () => {
    process.off('exit', killGroup);
    if (killGroup()) await exited;
  });
  return { output: () => output };
}
