// Throughput and latency of authenticated `GET /v1/databases` against a bare Koa route, in one run.
//
//   npm run build && node bench/api.js [--connections 10] [--duration 10] [--warmup 2] [--rounds 2]
//                                      [--cpu-prof <dir>] [--keep]
//
// Starts the real server (`node dist/server/main.js`) as a child process on a temporary state
// directory, registers 25 databases through the API, raises the organization's hourly limit (see
// raiseHourlyLimit) and restarts it; starts bench/bare-koa-server.js as a second child; then runs
// autocannon from this process against each in turn (bare, api, bare, api, ...), each measured run
// after a warm-up of its own, and prints the medians and the ratio api/bare. Exits non-zero if any
// request of any run (warm-up included) was not a 2xx, errored or timed out.
import { Buffer } from 'node:buffer';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { childCpuMs, freePort, startChild, stopChild, waitFor } from './child-processes.js';
import { integerFlag, out } from './output.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const serverEntry = join(root, 'dist', 'server', 'main.js');
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
    rounds: { type: 'string', default: '2' },
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

async function startDbmon(children, name, stateDir, port, profileDir) {
  const args = profileDir === undefined ? [serverEntry] : ['--cpu-prof', '--cpu-prof-dir', profileDir, serverEntry];
  const proc = startChild(children, name, root, args, {
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

async function startBare(children) {
  const proc = startChild(children, 'bare koa server', root, [bareEntry], {});
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

/** One request by hand before the load: the page, the totals and the raised limit are what we think. */
async function checkListResponse(base, apiKey) {
  const response = await globalThis.fetch(`${base}/v1/databases?per_page=${perPage}`, { headers: { Authorization: `Bearer ${apiKey}` } });
  const body = await response.json();
  const problems = [];
  if (response.status !== 200) problems.push(`status ${response.status}`);
  if (body.data?.length !== perPage) problems.push(`${body.data?.length} rows, expected ${perPage}`);
  if (body.pagination?.total !== databaseCount) problems.push(`total ${body.pagination?.total}, expected ${databaseCount}`);
  if (response.headers.get('x-ratelimit-limit') !== String(benchHourlyLimit)) {
    problems.push(`X-RateLimit-Limit ${response.headers.get('x-ratelimit-limit')}`);
  }
  if (problems.length > 0) throw new Error(`GET /v1/databases is not what the bench expects: ${problems.join('; ')}`);
  return Buffer.byteLength(JSON.stringify(body));
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

function row(cells, widths) {
  return cells.map((cell, i) => (i === 0 ? String(cell).padEnd(widths[i]) : String(cell).padStart(widths[i]))).join('  ');
}

async function main() {
  const stateDir = mkdtempSync(join(tmpdir(), 'dbmon-bench-'));
  const profileDir = flags['cpu-prof'] === undefined ? undefined : resolve(flags['cpu-prof']);
  const children = [];
  let failed = true;
  try {
    if (!existsSync(serverEntry)) throw new Error(`${serverEntry} is missing; run npm run build first`);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;

    // Setup run: first start writes initial-admin.json; register the databases; stop.
    const setup = await startDbmon(children, 'dbmon server (setup)', stateDir, port, undefined);
    const { api_key: apiKey } = JSON.parse(readFileSync(join(stateDir, 'initial-admin.json'), 'utf8'));
    await createDatabases(base, apiKey);
    await stopChild(setup);
    raiseHourlyLimit(stateDir);

    // The measured server: a fresh process over the same state.
    const dbmon = await startDbmon(children, 'dbmon server (measured)', stateDir, port, profileDir);
    const apiBytes = await checkListResponse(base, apiKey);
    const bare = await startBare(children);

    const targets = {
      bare: { name: 'bare Koa GET /hello', url: `http://127.0.0.1:${bare.port}/hello`, headers: {}, pid: bare.proc.child.pid },
      api: {
        name: `GET /v1/databases?per_page=${perPage}`,
        url: `${base}/v1/databases?per_page=${perPage}`,
        headers: { Authorization: `Bearer ${apiKey}` },
        pid: dbmon.child.pid,
      },
    };

    const cpuModel = cpus()[0]?.model ?? 'unknown CPU';
    const load1 = loadavg()[0].toFixed(2);
    out(`dbmon API bench: node ${process.version}, ${availableParallelism()} CPUs (${cpuModel}), load average before the runs ${load1}`);
    out(
      `autocannon: ${settings.connections} connections, ${settings.duration} s per run after a ${settings.warmup} s warm-up, ` +
        `${settings.rounds} rounds of bare then api; load generator, server and baseline share this machine`,
    );
    out(`api response body: ${apiBytes} bytes (${perPage} of ${databaseCount} databases)`);
    if (profileDir !== undefined) out(`server CPU profile: ${profileDir} (written when the server stops)`);
    out();

    const runs = { bare: [], api: [] };
    for (let round = 1; round <= settings.rounds; round++) {
      for (const kind of ['bare', 'api']) {
        await load(targets[kind], settings.warmup);
        const result = await load(targets[kind], settings.duration);
        runs[kind].push(result);
        out(
          `round ${round} ${kind.padEnd(4)}  ${result.rps.toFixed(0).padStart(7)} req/s  ` +
            `p50 ${String(result.p50).padStart(3)} ms  p99 ${String(result.p99).padStart(3)} ms  ` +
            `server CPU ${result.serverCpuUsPerRequest.toFixed(0).padStart(4)} us/req (${result.serverCpuPercent.toFixed(0)} % of a core), ` +
            `load generator ${result.loadCpuPercent.toFixed(0)} %  (${result.total} requests, all 2xx)`,
        );
      }
    }

    const summary = Object.fromEntries(
      Object.entries(runs).map(([kind, list]) => [
        kind,
        {
          rps: median(list.map((r) => r.rps)),
          p50: median(list.map((r) => r.p50)),
          p99: median(list.map((r) => r.p99)),
          cpu: median(list.map((r) => r.serverCpuUsPerRequest)),
        },
      ]),
    );
    const ratio = summary.api.rps / summary.bare.rps;
    const widths = [34, 10, 8, 8, 18];
    out();
    out(`medians of ${settings.rounds} rounds`);
    out(row(['target', 'req/s', 'p50 ms', 'p99 ms', 'server CPU us/req'], widths));
    for (const kind of ['bare', 'api']) {
      const s = summary[kind];
      out(row([targets[kind].name, s.rps.toFixed(0), s.p50.toFixed(1), s.p99.toFixed(1), s.cpu.toFixed(0)], widths));
    }
    out();
    out(
      `ratio api/bare throughput: ${(ratio * 100).toFixed(1)} % ` +
        `(target >= ${targetRatio * 100} %: ${ratio >= targetRatio ? 'met' : 'NOT met'})`,
    );
    out(
      `server CPU per request, bare/api: ${((summary.bare.cpu / summary.api.cpu) * 100).toFixed(1)} % ` +
        '(the throughput ratio if each server had a core to itself and the load generator were free)',
    );
    failed = false;
  } catch (error) {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    for (const proc of children) {
      if (proc.output.length > 0) process.stderr.write(`--- ${proc.name} output ---\n${proc.output.join('')}\n`);
    }
  } finally {
    for (const proc of children.reverse()) await stopChild(proc);
    if (flags.keep) out(`state dir kept: ${stateDir}`);
    else rmSync(stateDir, { recursive: true, force: true });
  }
  process.exitCode = failed ? 1 : 0;
}

await main();
