import { runCli } from '../../server/cli/run-cli.js';

export interface CliRun {
  code: number;
  stdout: string[];
  stderr: string[];
}

/** Runs the `dbmon` CLI in process with captured output and, unless told otherwise, an empty environment. */
export async function cli(argv: string[], options: { env?: NodeJS.ProcessEnv; stdin?: string; now?: Date } = {}): Promise<CliRun> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runCli(argv, {
    env: options.env ?? {},
    stdout: (line) => stdout.push(line),
    stderr: (line) => stderr.push(line),
    readStdin: async () => options.stdin ?? '',
    now: () => options.now ?? new Date(),
  });
  return { code, stdout, stderr };
}
