// The resident cost of loading one module (or a few together) into a fresh node with the agent's
// `#!` flags: what each dependency of the agent adds over an empty node.
//
//   npm run build && node bench/module-rss.js [--root DIR] [--repeat 3] [SPEC...]
//
// Each SPEC is a package name (`zod`), a node built-in (`node:https`), a path under --root
// (`dist/agent/config.js`), or several of them joined by `+`. For each, and for an empty process
// first, a child node imports it, waits 1.5 s, runs a full GC and prints VmRSS, RssAnon, RssFile
// (the node binary's and the libraries' pages) and V8's heap used and total; the medians of
// --repeat children are shown. Without SPECs it measures the agent's dependencies one by one.
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { shebangNodeFlags } from './agent-process.js';
import { integerFlag, out } from './output.js';

const { values: flags, positionals } = parseArgs({
  options: { root: { type: 'string', default: '.' }, repeat: { type: 'string', default: '3' } },
  allowPositionals: true,
  strict: true,
});
const root = resolve(flags.root);
const repeat = integerFlag(flags, 'repeat');
const specs = positionals.length > 0 ? positionals : ['zod', 'yaml', 'pino', 'better-sqlite3', 'mysql2/promise', 'node:https', 'dist/agent/sources/pg-driver.js', 'zod+yaml+pino+better-sqlite3', 'dist/agent/config.js', 'dist/agent/start-agent.js', 'dist/agent/delivery/http-transport.js', 'dist/agent/start-agent.js+dist/agent/config.js+dist/agent/delivery/http-transport.js'];

const child = `
  import { readFileSync } from 'node:fs';
  for (const spec of process.argv.slice(1)) await import(spec);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  globalThis.gc();
  const status = readFileSync('/proc/self/status', 'utf8');
  const mib = (key) => Number(new RegExp(key + ':\\\\s+(\\\\d+)').exec(status)[1]) / 1024;
  const { heapUsed, heapTotal } = process.memoryUsage();
  process.stdout.write(JSON.stringify({ rss: mib('VmRSS'), anon: mib('RssAnon'), file: mib('RssFile'), heapUsed: heapUsed / 1048576, heapTotal: heapTotal / 1048576 }));
  process.exit(0);
`;

/** A package or built-in as it is; a path as a file URL under --root. */
function specifier(part) {
  return part.startsWith('dist/') ? pathToFileURL(join(root, part)).href : part;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function measure(spec) {
  const modules = spec === '' ? [] : spec.split('+').map(specifier);
  const runs = [];
  for (let i = 0; i < repeat; i++) {
    // The child runs in --root, so that packages resolve from its node_modules.
    const result = spawnSync(process.execPath, [...nodeFlags, '--input-type=module', '-e', child, ...modules], { cwd: root, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${spec}: ${result.stderr}`);
    runs.push(JSON.parse(result.stdout));
  }
  return Object.fromEntries(Object.keys(runs[0]).map((key) => [key, median(runs.map((run) => run[key]))]));
}

const nodeFlags = [...shebangNodeFlags(), '--expose-gc'];
out(`module resident cost: node ${nodeFlags.join(' ')}, root ${root}, median of ${repeat}, load average ${loadavg()[0].toFixed(2)}`);
out(`${'module'.padEnd(34)} ${'VmRSS'.padStart(7)} ${'+empty'.padStart(7)} ${'RssAnon'.padStart(8)} ${'RssFile'.padStart(8)} ${'heap used/total'.padStart(16)}`);
const empty = measure('');
for (const spec of ['', ...specs]) {
  const m = spec === '' ? empty : measure(spec);
  out(
    `${(spec || '(empty)').padEnd(34)} ${m.rss.toFixed(1).padStart(7)} ${(m.rss - empty.rss).toFixed(1).padStart(7)} ${m.anon.toFixed(1).padStart(8)} ${m.file.toFixed(1).padStart(8)} ${`${m.heapUsed.toFixed(1)} / ${m.heapTotal.toFixed(1)}`.padStart(16)}`,
  );
}
out(`load average at the end ${loadavg()[0].toFixed(2)}`);
