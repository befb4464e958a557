import { execFile } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import t from 'tap';
import { postgresCollectors } from '../../../../../agent/collection/collectors/postgres/postgres-collectors.js';
import { collectionRunner, postgresSourceOn } from '../../../../helpers/collection-under-test.js';
import { createThrowawayPostgresDatabase } from '../../../../helpers/throwaway-postgres-database.js';

const run = promisify(execFile);
const PGBENCH = '/usr/bin/pgbench';
const RATE = 200;

const database = await createThrowawayPostgresDatabase();
const source = postgresSourceOn(t, database);
const connection = ['-h', database.settings.host, '-p', String(database.settings.port), '-U', 'postgres'];

t.test('TPS agrees with pgbench under a rate-limited load', async (t) => {
  await run(PGBENCH, ['-i', '-q', '-s', '1', ...connection, database.name]);
  const runner = collectionRunner(source, postgresCollectors);
  const bench = run(PGBENCH, ['-R', String(RATE), '-T', '12', '-c', '4', '-j', '2', ...connection, database.name]);
  // Measure the steady middle of the run, away from pgbench's start and end.
  await sleep(2000);
  await runner.collect();
  await sleep(8000);
  const snapshot = await runner.collect();
  const { stdout } = await bench;
  const reported = Number(/tps = ([\d.]+) \(without initial connection time\)/.exec(stdout)?.[1]);
  // Only a guard that the load ran: on a loaded machine pgbench falls behind its schedule, and the
    // cross-check below compares with what pgbench actually achieved.
    t.ok(reported > RATE * 0.5, `pgbench ran at ${reported} TPS`);
  const tps = snapshot.metrics.throughput.transactions_per_second ?? NaN;
  t.ok(Math.abs(tps - reported) / reported < 0.15, `dbmon ${tps} TPS vs pgbench ${reported}`);
  t.equal(snapshot.metrics.latency.source, 'estimate');
  t.ok((snapshot.metrics.throughput.queries_per_second ?? 0) > tps, 'several statements per transaction');
});
