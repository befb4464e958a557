// Reads over a fleet's stored history, in this process, with a checkout's code (see fleet-state.js):
// history's server time (24 h at 1 m of 1 and of 2 metrics, 7 d with resolution=auto), a
// `/metrics` scrape with every database, and the bytes each stored value takes.
//
//   npm run build && node bench/fleet-reads.js [--root DIR] [--databases 200] [--days 7]
//                                               [--requests 200] [--seconds 30] [--skip-bytes] [--watched N]
//
// Server time is the service call and the serialisation of its answer to the body's bytes (what a
// request adds to authentication and routing), measured around each call; databases are taken in turn
// (all, or the first `--watched`: a cached span serves the next read of its database). Each shape
// runs `--requests` times or for `--seconds`, whichever ends first, after 3 unmeasured calls. The
// clock the server is given is the end of the stored history. Nothing is written. CPU is this
// process's (process.cpuUsage) over the measured calls, per call: the figure to read on a loaded machine.
import { Buffer } from 'node:buffer';
import { performance } from 'node:perf_hooks';
import { describeRun, fleetArgs, fleetState, openFleet } from './fleet-state.js';
import { integerFlag, out, percentile } from './output.js';

const flags = fleetArgs({
  requests: { type: 'string', default: '200' },
  seconds: { type: 'string', default: '30' },
  'skip-bytes': { type: 'boolean', default: false },
  watched: { type: 'string' },
});
const requests = integerFlag(flags, 'requests');
const seconds = integerFlag(flags, 'seconds');
const hour = 3_600_000;

const { dir, fleet } = await fleetState(flags);
const now = new Date(fleet.endMs);
const { server, db, services, catalog, scrapeSources } = await openFleet(flags.root, dir, now);
const [{ historyQuery }, { MetricsService }, { SamplesRepository }, { defaultRetention }, { ServerMetrics }] = await Promise.all([
  server.load('server/metrics/metrics-schema.js'),
  server.load('server/metrics/metrics-service.js'),
  server.load('server/metrics/samples-repository.js'),
  server.load('server/metrics/retention.js'),
  server.load('server/metrics-endpoint/server-metrics.js'),
]);
// The answer's bytes as the route sends them: by the history presenter where the checkout has one,
// else by Koa's JSON.stringify of the service's object (code before the presenter).
const historyBody = await server.load('server/metrics/history-presenter.js').then(
  (presenter) => presenter.historyBody,
  () => (answer) => Buffer.from(JSON.stringify(answer)),
);
// The history service as the metrics feature makes it (the composition does not hand it out).
const history = new MetricsService(new SamplesRepository(db, catalog), defaultRetention, catalog);
const parseHistoryQuery = historyQuery(catalog);
// `--watched N`: the history reads go round the first N databases only (dashboards kept open on a few).
const watched = flags.watched === undefined ? fleet.databases.length : integerFlag(flags, 'watched');
const databases = fleet.databases.map(({ id }) => services.databases.findAnyOrg(id));
const historyDatabases = databases.slice(0, watched);

/** Milliseconds per call of `work` (wall, each call), `requests` times at most, for `seconds` at most, and the mean CPU milliseconds per call. */
async function timed(work) {
  for (let i = 0; i < 3; i++) await work(i);
  const times = [];
  const deadline = performance.now() + seconds * 1000;
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < requests && performance.now() < deadline; i++) {
    const started = performance.now();
    await work(i);
    times.push(performance.now() - started);
  }
  const cpu = process.cpuUsage(cpuBefore);
  return { times, cpuMs: (cpu.user + cpu.system) / 1000 / times.length };
}

function report(name, { times, cpuMs }) {
  const f = (ms) => ms.toFixed(ms < 10 ? 2 : 0).padStart(8);
  out(`${name.padEnd(44)} p50 ${f(percentile(times, 0.5))} ms  p99 ${f(percentile(times, 0.99))} ms  max ${f(Math.max(...times))} ms  CPU ${f(cpuMs)} ms  (${times.length} calls)`);
}

const shapes = [
  { name: 'history 24 h at 1m, 1 metric', query: { metrics: 'cpu_usage', resolution: '1m' }, spanMs: 24 * hour },
  { name: 'history 24 h at 1m, 2 metrics', query: { metrics: 'cpu_usage,connections.active', resolution: '1m' }, spanMs: 24 * hour },
  { name: 'history 7 d auto, 1 metric', query: { metrics: 'cpu_usage', resolution: 'auto' }, spanMs: 7 * 24 * hour },
  { name: 'history 7 d auto, every metric', query: { resolution: 'auto' }, spanMs: 7 * 24 * hour },
];

out(describeRun(flags));
out(`state ${dir} (${fleet.samples} samples); history reads over ${historyDatabases.length} databases in turn`);
for (const shape of shapes) {
  const query = parseHistoryQuery.parse({
    ...shape.query,
    from: new Date(fleet.endMs - shape.spanMs).toISOString(),
    to: new Date(fleet.endMs).toISOString(),
  });
  const points = JSON.parse(historyBody(history.history(historyDatabases[0], query, now))).data.length;
  const timing = await timed((i) => historyBody(history.history(historyDatabases[i % historyDatabases.length], query, now)).length);
  report(`${shape.name} (${points} points)`, timing);
}

const serverMetrics = new ServerMetrics({ ...scrapeSources, now: () => now }, catalog);
let scrapeBytes = 0;
const scrapes = await timed(async () => {
  scrapeBytes = (await serverMetrics.metrics()).length;
});
report(`/metrics scrape, ${databases.length} databases (${(scrapeBytes / 1024).toFixed(0)} kB)`, scrapes);

if (!flags['skip-bytes']) {
  // Tables a checkout may not have count 0: the sealed hours and blocks came with migrations 0031 and 0032.
  const pagesOf = (table) =>
    db
      .prepare('SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name IN (SELECT name FROM sqlite_schema WHERE tbl_name = ?)')
      .pluck()
      .get(table);
  const rawMetrics = catalog.filter((metric) => metric.history.includes('raw')).length;
  const rawValues = fleet.samples * rawMetrics;
  const rawBytes = pagesOf('samples') + pagesOf('sample_hours');
  const rollupBytes = pagesOf('sample_rollups') + pagesOf('rollup_blocks');
  const fileBytes = db.pragma('page_count', { simple: true }) * db.pragma('page_size', { simple: true });
  const freeBytes = db.pragma('freelist_count', { simple: true }) * db.pragma('page_size', { simple: true });
  const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
  out(`raw values: ${fleet.samples} samples x ${rawMetrics} metrics = ${rawValues}`);
  out(`bytes per raw value: ${(rawBytes / rawValues).toFixed(2)} (samples and sample_hours with their indexes, ${mib(rawBytes)})`);
  out(`bytes of rollups per raw value: ${(rollupBytes / rawValues).toFixed(2)} (sample_rollups and rollup_blocks, ${mib(rollupBytes)}); with raw: ${((rawBytes + rollupBytes) / rawValues).toFixed(2)}`);
  out(`whole file per raw value: ${(fileBytes / rawValues).toFixed(2)} (${mib(fileBytes)}, of which ${mib(freeBytes)} free pages)`);
}
db.close();
