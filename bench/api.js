// Throughput and latency of authenticated `GET /v1/databases` against a bare Koa route that sends
// the same page with the same headers (#14 goal 6), and optionally against another checkout's
// server (a baseline commit), all in one run.
//
//   npm run build && node bench/api.js [--connections 10] [--duration 10] [--warmup 2] [--rounds 3]
//                                      [--baseline <checkout>] [--cpu-prof <dir>] [--keep]
//
// Starts the real server (`node dist/server/main.js`) as a child process on a temporary state
// directory, registers 25 databases through the API, raises the organization's hourly limit (see
// raiseHourlyLimit) and restarts it; with --baseline, does the same for `<checkout>/dist/server/main.js`
// (built beforehand, on a state directory and port of its own). Starts bench/bare-koa-server.js with
// the API's answer as its page. Then runs autocannon from this process against each target in turn,
// each measured run after a warm-up of its own, the order rotating every round so that no target
// always follows another; prints each run, the medians with their range over the rounds, and the
// ratios. Exits non-zero if any request of any run (warm-up included) was not a 2xx, errored or
// timed out.
import { Buffer } from 'node:buffer';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { childCpuMs, freePort, startChild, stopChild, waitFor } from './child-processes.js';
import { integerFlag, out } from './output.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bareEntry = join(root, 'bench', 'bare-koa-server.js');

const databaseCount = 25;
const perPage = 20;
const benchHourlyLimit = 100_000_000;
const targetRatio = 0.5;

const { values: flags } = parseArgs({
  options: {
    connections: { type: 'string', default: '10' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '3' },
    baseline: { type: 'string' },
    'cpu-prof': { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
  strict: true,
});
const settings = {
  connections: integerFlag(flags, 'connections'),
  duration: integerFlag(flags, 'duration'),
  warmup: integerFlag(flags, 'warmup'),
  rounds: integerFlag(flags, 'rounds'),
};

function serverEntryOf(checkout) {
  const entry = join(checkout, 'dist', 'server', 'main.js');
  if (!existsSync(entry)) throw new Error(`${entry} is missing; run npm run build in ${checkout} first`);
  return entry;
}

async function startDbmon(children, name, checkout, stateDir, port, profileDir) {
  const entry = serverEntryOf(checkout);
  const args = profileDir === undefined ? [entry] : ['--cpu-prof', '--cpu-prof-dir', profileDir, entry];
  const proc = startChild(children, name, checkout, args, {
    DBMON_STATE_DIR: stateDir,
    DBMON_HOST: '127.0.0.1',
    DBMON_PORT: String(port),
    DBMON_LOG_LEVEL: 'warn',
  });
  // The server writes the initial credentials once it listens: wait for those too.
  const adminFile = join(stateDir, 'initial-admin.json');
  await waitFor(proc, '/healthz', async () => (await globalThis.fetch(`http://127.0.0.1:${port}/healthz`)).status === 200 && existsSync(adminFile));
  return proc;
}

/** A checkout's server with 25 databases and the raised limit, started afresh for the measurement. */
async function prepareDbmon(children, stateDirs, label, checkout, profileDir) {
  const stateDir = mkdtempSync(join(tmpdir(), 'dbmon-bench-'));
  stateDirs.push(stateDir);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // Setup run: first start writes initial-admin.json; register the databases; stop.
  const setup = await startDbmon(children, `dbmon ${label} (setup)`, checkout, stateDir, port, undefined);
  const { api_key: apiKey } = JSON.parse(readFileSync(join(stateDir, 'initial-admin.json'), 'utf8'));
  await createDatabases(base, apiKey);
  await stopChild(setup);
  raiseHourlyLimit(stateDir);
  // The measured server: a fresh process over the same state.
  const proc = await startDbmon(children, `dbmon ${label} (measured)`, checkout, stateDir, port, profileDir);
  const page = await checkListResponse(base, apiKey);
  return {
    target: {
      name: `${label} GET /v1/databases?per_page=${perPage}`,
      url: `${base}/v1/databases?per_page=${perPage}`,
      headers: { Authorization: `Bearer ${apiKey}` },
      pid: proc.child.pid,
    },
    page,
    stateDir,
  };
}

async function startBare(children, pageFile) {
  const proc = startChild(children, 'bare koa server', root, [bareEntry, pageFile], {});
  let port;
  await waitFor(proc, 'listening line', async () => {
    const match = /listening (\d+)/.exec(proc.output.join(''));
    if (match !== null) port = Number(match[1]);
    return match !== null;
  });
  return { proc, port };
}

async function createDatabases(base, apiKey) {
  for (let i = 1; i <= databaseCount; i++) {
    const response = await globalThis.fetch(`${base}/v1/databases`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        name: `bench-${String(i).padStart(2, '0')}`,
        type: i % 2 === 0 ? 'postgresql' : 'mysql',
        connection: { host: `db${i}.internal`, database: 'app', username: 'monitor', password: 'not-a-real-password' },
        // Not collected: the hosts do not exist, and the bench measures the API, not collection.
        monitoring: { enabled: false },
      }),
    });
    if (response.status !== 201) throw new Error(`creating database ${i}: HTTP ${response.status} ${await response.text()}`);
  }
}

/**
 * The enterprise plan allows 10,000 requests per hour per key, which one load run exceeds within a
 * second. The bench raises its own organization's limit through the column that exists for exactly
 * this (organizations.custom_hourly_limit), with the server stopped. The limiter still counts every
 * request; it just never says no.
 */
function raiseHourlyLimit(stateDir) {
  const db = new Database(join(stateDir, 'dbmon.db'));
  try {
    const { changes } = db.prepare('UPDATE organizations SET custom_hourly_limit = ?').run(benchHourlyLimit);
    if (changes !== 1) throw new Error(`expected one organization, updated ${changes}`);
  } finally {
    db.close();
  }
}

/** One request by hand before the load: the page, the totals and the raised limit are what we think. Returns the page. */
async function checkListResponse(base, apiKey) {
  const response = await globalThis.fetch(`${base}/v1/databases?per_page=${perPage}`, { headers: { Authorization: `Bearer ${apiKey}` } });
  const text = await response.text();
  const body = JSON.parse(text);
  const problems = [];
  if (response.status !== 200) problems.push(`status ${response.status}`);
  if (body.data?.length !== perPage) problems.push(`${body.data?.length} rows, expected ${perPage}`);
  if (body.pagination?.total !== databaseCount) problems.push(`total ${body.pagination?.total}, expected ${databaseCount}`);
  if (response.headers.get('x-ratelimit-limit') !== String(benchHourlyLimit)) {
    problems.push(`X-RateLimit-Limit ${response.headers.get('x-ratelimit-limit')}`);
  }
  const link = response.headers.get('link');
  if (link === null) problems.push('no Link header');
  if (problems.length > 0) throw new Error(`GET /v1/databases is not what the bench expects: ${problems.join('; ')}`);
  return { body: text, link };
}

function failures(result) {
  return result.non2xx + result.errors + result.timeouts;
}

async function load(target, duration) {
  const serverCpuBefore = childCpuMs(target.pid);
  const ownCpuBefore = process.cpuUsage();
  const result = await autocannon({
    url: target.url,
    headers: target.headers,
    connections: settings.connections,
    duration,
  });
  const serverCpuAfter = childCpuMs(target.pid);
  const ownCpu = process.cpuUsage(ownCpuBefore);
  const seconds = result.duration;
  if (failures(result) > 0) {
    throw new Error(
      `${target.name}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts ` +
        `(status counts: 2xx ${result['2xx']}, 4xx ${result['4xx']}, 5xx ${result['5xx']})`,
    );
  }
  return {
    rps: result.requests.average,
    total: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    // CPU per request and utilization: on a shared 2-core machine they tell whether the server
    // or the load generator was the bottleneck (a server near 100 % of one core is saturated).
    serverCpuUsPerRequest:
      serverCpuBefore === undefined || serverCpuAfter === undefined
        ? NaN
        : ((serverCpuAfter - serverCpuBefore) * 1000) / result.requests.total,
    serverCpuPercent:
      serverCpuBefore === undefined || serverCpuAfter === undefined ? NaN : (serverCpuAfter - serverCpuBefore) / (seconds * 10),
    loadCpuPercent: (ownCpu.user + ownCpu.system) / 1000 / (seconds * 10),
  };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** `median (min–max)` of a list, each figure through `format`. */
function spread(values, format) {
  return `${format(median(values))} (${format(Math.min(...values))}–${format(Math.max(...values))})`;
}

const integer = (value) => value.toFixed(0);
const percent = (value) => `${(value * 100).toFixed(1)} %`;

function row(cells, widths) {
  return cells.map((cell, i) => (i === 0 ? String(cell).padEnd(widths[i]) : String(cell).padStart(widths[i]))).join('  ');
}

/** A ratio per round, of runs measured minutes apart at most: less moved by the machine's load than a ratio of medians. */
function roundRatios(runs, numerator, denominator, field) {
  return runs[numerator].map((run, i) => run[field] / runs[denominator][i][field]);
}

async function main() {
  const profileDir = flags['cpu-prof'] === undefined ? undefined : resolve(flags['cpu-prof']);
  const children = [];
  const stateDirs = [];
  let failed = true;
  try {
    const api = await prepareDbmon(children, stateDirs, 'api', root, profileDir);
    const baseline =
      flags.baseline === undefined ? undefined : await prepareDbmon(children, stateDirs, 'baseline', resolve(flags.baseline), undefined);
    const pageFile = join(api.stateDir, 'bench-page.json');
    writeFileSync(pageFile, JSON.stringify(api.page));
    const bare = await startBare(children, pageFile);

    const targets = {
      page: { name: 'bare Koa GET /page', url: `http://127.0.0.1:${bare.port}/page`, headers: {}, pid: bare.proc.child.pid },
      api: api.target,
      ...(baseline === undefined ? {} : { baseline: baseline.target }),
    };
    const kinds = Object.keys(targets);

    const cpuModel = cpus()[0]?.model ?? 'unknown CPU';
    const load1 = loadavg()[0].toFixed(2);
    out(`dbmon API bench: node ${process.version}, ${availableParallelism()} CPUs (${cpuModel}), load average before the runs ${load1}`);
    out(
      `autocannon: ${settings.connections} connections, ${settings.duration} s per run after a ${settings.warmup} s warm-up, ` +
        `${settings.rounds} rounds of ${kinds.join(', ')} (order rotating); load generator, servers and reference share this machine`,
    );
    out(`api response body: ${Buffer.byteLength(api.page.body)} bytes (${perPage} of ${databaseCount} databases), sent by /page too`);
    if (baseline !== undefined) out(`baseline: ${resolve(flags.baseline)}`);
    if (profileDir !== undefined) out(`server CPU profile: ${profileDir} (written when the server stops)`);
    out();

    const runs = Object.fromEntries(kinds.map((kind) => [kind, []]));
    for (let round = 1; round <= settings.rounds; round++) {
      const shift = (round - 1) % kinds.length;
      for (const kind of [...kinds.slice(shift), ...kinds.slice(0, shift)]) {
        await load(targets[kind], settings.warmup);
        const result = await load(targets[kind], settings.duration);
        runs[kind].push(result);
        out(
          `round ${round} ${kind.padEnd(8)}  ${result.rps.toFixed(0).padStart(7)} req/s  ` +
            `p50 ${String(result.p50).padStart(3)} ms  p99 ${String(result.p99).padStart(3)} ms  ` +
            `server CPU ${result.serverCpuUsPerRequest.toFixed(0).padStart(4)} us/req (${result.serverCpuPercent.toFixed(0)} % of a core), ` +
            `load generator ${result.loadCpuPercent.toFixed(0)} %  (${result.total} requests, all 2xx)`,
        );
      }
    }

    const widths = [42, 22, 7, 7, 18];
    out();
    out(`medians of ${settings.rounds} rounds (min–max)`);
    out(row(['target', 'req/s', 'p50 ms', 'p99 ms', 'server CPU us/req'], widths));
    for (const kind of kinds) {
      const list = runs[kind];
      out(
        row(
          [
            targets[kind].name,
            spread(list.map((r) => r.rps), integer),
            median(list.map((r) => r.p50)).toFixed(1),
            median(list.map((r) => r.p99)).toFixed(1),
            spread(list.map((r) => r.serverCpuUsPerRequest), integer),
          ],
          widths,
        ),
      );
    }
    out();
    const goal = median(roundRatios(runs, 'api', 'page', 'rps'));
    out(
      `api/page throughput, per round: ${spread(roundRatios(runs, 'api', 'page', 'rps'), percent)} ` +
        `(target >= ${targetRatio * 100} %: ${goal >= targetRatio ? 'met' : 'NOT met'})`,
    );
    out(
      `page/api server CPU per request, per round: ${spread(roundRatios(runs, 'page', 'api', 'serverCpuUsPerRequest'), percent)} ` +
        '(the throughput ratio if each server had a core to itself and the load generator were free)',
    );
    if (baseline !== undefined) {
      out(`api/baseline throughput, per round: ${spread(roundRatios(runs, 'api', 'baseline', 'rps'), percent)}`);
      out(`api/baseline server CPU per request, per round: ${spread(roundRatios(runs, 'api', 'baseline', 'serverCpuUsPerRequest'), percent)}`);
    }
    failed = false;
  } catch (error) {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    for (const proc of children) {
      if (proc.output.length > 0) process.stderr.write(`--- ${proc.name} output ---\n${proc.output.join('')}\n`);
    }
  } finally {
    for (const proc of children.reverse()) await stopChild(proc);
    for (const stateDir of stateDirs) {
      if (flags.keep) out(`state dir kept: ${stateDir}`);
      else rmSync(stateDir, { recursive: true, force: true });
    }
  }
  process.exitCode = failed ? 1 : 0;
}

await main();
