import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { tempDir } from '../helpers/temp-dir.js';

const run = promisify(execFile);
const unitsDir = new URL('../../systemd/', import.meta.url).pathname;
const units = ['dbmon-server.service', 'dbmon-agent.service'];

/** Runs systemd-analyze; resolves with its exit code and both outputs (it exits 0 on warnings). */
async function analyze(args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run('systemd-analyze', args, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', SYSTEMD_COLORS: '0', SYSTEMD_PAGER: '' } });
    return { code: 0, output: `${stdout}${stderr}` };
  } catch (error) {
    const failed = error as { code?: number | string; stdout?: string; stderr?: string };
    if (failed.code === 'ENOENT') throw new Error('systemd-analyze is not installed (scripts/setup-services.sh installs Debian package systemd)', { cause: error });
    return { code: Number(failed.code), output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

/**
 * A copy of the unit under its own name in a temporary directory, with ExecStart's node replaced by
 * this test's node: verify checks that the executable exists (the program path after it is an argument).
 */
function verifiableCopy(t: Parameters<typeof tempDir>[0], unit: string): string {
  const dir = tempDir(t, 'dbmon-units-');
  const text = readFileSync(join(unitsDir, unit), 'utf8').replaceAll('/usr/bin/node ', `${process.execPath} `);
  const path = join(dir, unit);
  writeFileSync(path, text);
  return path;
}

for (const unit of units) {
  t.test(`${unit}: systemd-analyze verify prints nothing`, async (t) => {
    const result = await analyze(['verify', verifiableCopy(t, unit)]);
    t.equal(result.output, '', 'no warnings, no errors');
    t.equal(result.code, 0);
  });

  t.test(`${unit}: systemd-analyze security --offline=yes scores at most 2.0`, async (t) => {
    const result = await analyze(['security', '--offline=yes', '--no-pager', verifiableCopy(t, unit)]);
    const overall = /Overall exposure level for \S+: (\d+\.\d+) (\S+)/.exec(result.output);
    t.ok(overall, 'reports an overall exposure level');
    const score = Number(overall?.[1]);
    t.comment(`${unit}: exposure ${score} ${overall?.[2]}`);
    t.ok(score <= 2.0, `exposure ${score} <= 2.0`);
    t.equal(overall?.[2], 'OK');
  });

  t.test(`${unit}: the directives the packaging relies on`, async (t) => {
    const lines = readFileSync(join(unitsDir, unit), 'utf8').split('\n');
    const values = (key: string) => lines.filter((line) => line.startsWith(`${key}=`)).map((line) => line.slice(key.length + 1));
    t.same(values('Type'), ['exec']);
    t.same(values('Restart'), ['on-failure']);
    t.same(values('DynamicUser'), ['yes']);
    t.same(values('ProtectSystem'), ['strict']);
    t.same(values('CapabilityBoundingSet'), ['']);
    t.same(values('AmbientCapabilities'), ['']);
    t.same(values('RestrictAddressFamilies'), ['AF_INET AF_INET6 AF_UNIX']);
    t.same(values('MemoryDenyWriteExecute'), [], "no MemoryDenyWriteExecute: V8's JIT needs W+X memory");
    t.same(values('ConfigurationDirectory'), ['dbmon']);
    const server = unit === 'dbmon-server.service';
    t.same(values('StateDirectory'), [server ? 'dbmon' : 'dbmon-agent']);
    t.same(values('LoadCredential'), [server ? 'secret-key:/etc/dbmon/secret-key' : 'agent-key:/etc/dbmon/agent-key']);
    const entry = server ? 'server' : 'agent';
    const [, nodeFlags] = new RegExp(`^/usr/bin/node ((?:--\\S+ )*)/opt/dbmon/dist/${entry}/main\\.js `).exec(values('ExecStart')[0] ?? '') ?? [];
    t.ok(nodeFlags !== undefined, `ExecStart runs node on dist/${entry}/main.js`);
    const shebang = readFileSync(new URL(`../../${entry}/main.ts`, import.meta.url), 'utf8').split('\n', 1)[0]!;
    const shebangFlags = shebang.split(' ').filter((word) => word.startsWith('--'));
    t.same(nodeFlags?.trim().split(' ').filter(Boolean), shebangFlags, "node's flags are those of the entry's #! line");
  });
}
