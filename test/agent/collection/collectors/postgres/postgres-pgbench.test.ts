import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import t from 'tap';
import { postgresCollectors } from '../../../../../agent/collection/collectors/postgres/postgres-collectors.js';
import type { Snapshot } from '../../../../../common/agent-protocol/snapshot.js';
import { collectionRunner, postgresSourceOn } from '../../../../helpers/collection-under-test.js';
import { tempDir } from '../../../../helpers/temp-dir.js';
import { createTenant, startTestServer } from '../../../../helpers/test-server.js';
import { createThrowawayPostgresDatabase } from '../../../../helpers/throwaway-postgres-database.js';

const run = promisify(execFile);
const PGBENCH = '/usr/bin/pgbench';
const RATE = 200;
const INTERVAL_MS = 10_000;

const database = await createThrowawayPostgresDatabase();
const source = postgresSourceOn(t, database);
const connection = ['-h', database.settings.host, '-p', String(database.settings.port), '-U', 'postgres'];

/** When each of pgbench's transactions ended, in ms since the epoch, from its per-transaction logs (`-l`). */
function transactionEnds(logDir: string): number[] {
  return readdirSync(logDir)
    .filter((file) => file.startsWith('pgbench_log.'))
    .flatMap((file) => readFileSync(join(logDir, file), 'utf8').trim().split('\n'))
    .map((line) => {
      // client_id transaction_no time script_no time_epoch time_us [schedule_lag]
      const fields = line.split(' ');
      return Number(fields[4]) * 1000 + Number(fields[5]) / 1000;
    });
}

t.test('rates agree with pgbench under a rate-limited load: in the snapshot and read back from history, raw and by the minute', async (t) => {
  await run(PGBENCH, ['-i', '-q', '-s', '1', ...connection, database.name]);
  const logDir = tempDir(t, 'dbmon-pgbench-');
  const runner = collectionRunner(source, postgresCollectors);
  const bench = run(PGBENCH, ['-R', String(RATE), '-T', '35', '-c', '4', '-j', '2', '-l', ...connection, database.name], { cwd: logDir });
  // Measure the steady middle of the run, away from pgbench's start and end.
  await sleep(2000);
  const snapshots: Snapshot[] = [await runner.collect()];
  for (let cycle = 0; cycle < 3; cycle++) {
    await sleep(INTERVAL_MS);
    snapshots.push(await runner.collect());
  }
  const { stdout } = await bench;
  const reported = Number(/tps = ([\d.]+) \(without initial connection time\)/.exec(stdout)?.[1]);
  // Only a guard that the load ran: on a loaded machine pgbench falls behind its schedule, and the
  // cross-checks below compare with what pgbench actually achieved.
  t.ok(reported > RATE * 0.5, `pgbench ran at ${reported} TPS`);
  const last = snapshots.at(-1)!;
  const tps = last.metrics.throughput.transactions_per_second ?? NaN;
  t.ok(Math.abs(tps - reported) / reported < 0.15, `dbmon ${tps} TPS vs pgbench ${reported} over its whole run`);
  t.equal(last.metrics.latency.source, 'estimate');
  t.ok((last.metrics.throughput.queries_per_second ?? 0) > tps, 'several statements per transaction');

  // pgbench's own rate over each interval dbmon measured, from the ends of its transactions.
  const ends = transactionEnds(logDir);
  const at = snapshots.map((snapshot) => Date.parse(snapshot.timestamp));
  const pgbenchRates = at.slice(1).map((end, i) => ends.filter((ms) => ms > at[i]! && ms <= end).length / ((end - at[i]!) / 1000));
  const commitRates = snapshots.slice(1).map((snapshot) => snapshot.metrics.rates.pg_stat_database_xact_commit ?? NaN);
  t.equal(snapshots[0]!.metrics.rates.pg_stat_database_xact_commit, null, 'no rate before a second cycle');
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const within5Percent = (measured: number, expected: number, what: string) =>
    t.ok(Math.abs(measured - expected) / expected < 0.05, `${what}: dbmon ${measured.toFixed(2)}/s vs pgbench ${expected.toFixed(2)}/s`);
  within5Percent(mean(commitRates), mean(pgbenchRates), 'commits per second over the measured intervals');
  for (const snapshot of snapshots.slice(1)) {
    const { rates, throughput } = snapshot.metrics;
    t.ok(Math.abs(rates.pg_stat_database_xact_commit! + rates.pg_stat_database_xact_rollback! - throughput.transactions_per_second!) < 1e-6, 'commits and rollbacks make the transactions');
    t.ok(rates.pg_stat_database_tup_updated! > 2 * rates.pg_stat_database_xact_commit!, "pgbench's three updates per transaction");
    t.ok(rates.pg_stat_database_blks_hit! > 0, 'blocks hit');
  }

  // Through the server: stored, then read back raw and rolled up by the minute.
  const server = await startTestServer({ now: new Date(at.at(-1)! + 1000) });
  t.teardown(server.close);
  const tenant = createTenant(server.services, server.clock.now);
  const databaseId = server.services.databases.create(
    tenant.orgId,
    { name: 'pgbench', type: 'postgresql', agent_id: null, connection: { host: 'h', database: 'd', username: 'u', ssl: false }, monitoring: { enabled: true, interval_seconds: 10 } },
    server.clock.now,
  ).id;
  server.services.ingest.ingest({ kind: 'embedded' }, { batch_id: 'pgbench-batch-0000000001', samples: snapshots.map((snapshot) => ({ database_id: databaseId, snapshot })) }, server.clock.now);
  const history = async (resolution: string) => {
    const query = `metrics=rates.pg_stat_database_xact_commit&from=${new Date(at[0]! - 60_000).toISOString()}&to=${server.clock.now.toISOString()}&resolution=${resolution}`;
    const response = await server.request('GET', `/v1/databases/${databaseId}/metrics/history?${query}`, { key: tenant.key });
    t.equal(response.status, 200, `history at ${resolution}`);
    return response.body.data as { timestamp: string; metrics: Record<string, number | { avg: number } | null> }[];
  };
  const raw = await history('raw');
  t.same(
    raw.map((point) => point.metrics['rates.pg_stat_database_xact_commit']),
    snapshots.map((snapshot) => snapshot.metrics.rates.pg_stat_database_xact_commit),
    'raw history keeps each rate',
  );
  within5Percent(mean(raw.slice(1).map((point) => point.metrics['rates.pg_stat_database_xact_commit'] as number)), mean(pgbenchRates), 'raw history');
  const minutes = await history('1m');
  const intervalsIn = (bucket: string) => at.slice(1).flatMap((end, i) => (Math.floor(end / 60_000) * 60_000 === Date.parse(bucket) ? [i] : []));
  for (const { timestamp, metrics } of minutes) {
    const intervals = intervalsIn(timestamp);
    if (intervals.length === 0) continue;
    // A minute holds one or two intervals, too few to hold against pgbench: PostgreSQL publishes a
    // backend's counts up to a second late, several percent of one 10 s interval. Against pgbench the
    // measured window counts; a minute must give the mean of the raw rates it holds.
    const { avg } = metrics['rates.pg_stat_database_xact_commit'] as { avg: number };
    const rawMean = mean(intervals.map((i) => commitRates[i]!));
    t.ok(Math.abs(avg - rawMean) < 0.001, `the ${timestamp} minute: ${avg} is the mean of its raw rates, ${rawMean}`);
  }
  t.ok(minutes.some(({ timestamp }) => intervalsIn(timestamp).length > 0), 'a minute holds the measured intervals');
});
