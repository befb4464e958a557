// Wall and CPU seconds of test files run on their own, alternating two variants in one session:
// ts-node's default transpile (every test process transpiles the sources again) and the cached
// transpiler tsconfig.json names (test/helpers/cached-transpiler.cjs).
//
//   node bench/test-file-times.js [--rounds 2] [--coverage] test/a.test.ts [test/b.test.ts ...]
//
// Runs `npx tap --allow-incomplete-coverage [--disable-coverage] FILE` one file at a time, default
// then cached, each round (the cached variant's first run of a changed source fills the cache).
// Prints each run and, per file, the medians and the ratios cached/default. Exits non-zero if any run fails.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { integerFlag, out, percentile } from './output.js';

const { values: flags, positionals: files } = parseArgs({
  options: { rounds: { type: 'string', default: '2' }, coverage: { type: 'boolean', default: false } },
  allowPositionals: true,
});
const rounds = integerFlag(flags, 'rounds');
if (files.length === 0) throw new TypeError('name at least one test file');

const root = join(import.meta.dirname, '..');
// The project's tsconfig without the transpiler: what ts-node does by default.
const defaultProject = join(root, 'tsconfig.bench-default-transpile.json');
const config = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8'));
delete config['ts-node'];
writeFileSync(defaultProject, JSON.stringify(config));

const variants = { default: { TS_NODE_PROJECT: defaultProject }, cached: {} };
const runs = [];
let failed = false;
let childCpu = readChildCpu();
try {
  for (let round = 1; round <= rounds; round++) {
    for (const file of files) {
      for (const [variant, env] of Object.entries(variants)) {
        const tapArgs = ['tap', '--allow-incomplete-coverage', ...(flags.coverage ? [] : ['--disable-coverage']), file];
        const started = performance.now();
        const run = spawnSync('npx', tapArgs, { cwd: root, env: { ...process.env, ...env }, stdio: 'ignore' });
        const wall = (performance.now() - started) / 1000;
        const cpu = childCpuSeconds();
        failed ||= run.status !== 0;
        runs.push({ file, variant, wall, cpu });
        out(`${file}\t${variant}\t${wall.toFixed(1)} s wall\t${cpu.toFixed(1)} s cpu\texit ${run.status}\tload ${loadavg()[0].toFixed(1)}`);
      }
    }
  }
} finally {
  rmSync(defaultProject, { force: true });
}
out('\nmedians: file, default wall/cpu, cached wall/cpu, cached/default (wall, cpu)');
for (const file of files) {
  const median = (variant, key) => percentile(runs.filter((run) => run.file === file && run.variant === variant).map((run) => run[key]), 0.5);
  const [dw, dc, cw, cc] = [median('default', 'wall'), median('default', 'cpu'), median('cached', 'wall'), median('cached', 'cpu')];
  out(`${file}\t${dw.toFixed(1)}/${dc.toFixed(1)} s\t${cw.toFixed(1)}/${cc.toFixed(1)} s\t${(cw / dw).toFixed(2)}, ${(cc / dc).toFixed(2)}`);
}
process.exit(failed ? 1 : 0);

/** User and system CPU seconds of the waited-for children (tap, its test processes and theirs) since the last call. */
function childCpuSeconds() {
  const now = readChildCpu();
  const spent = now - childCpu;
  childCpu = now;
  return spent;
}

function readChildCpu() {
  // /proc/self/stat fields 16 and 17 (cutime, cstime), in clock ticks: 100 a second on Linux.
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100;
}
