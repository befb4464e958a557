import pino from 'pino';
import t from 'tap';
import { CollectionRunner } from '../../../agent/collection/collection-runner.js';
import type { Collector, Pingable } from '../../../agent/collection/collector.js';
import { postgresCollectors } from '../../../agent/collection/collectors/postgres/postgres-collectors.js';
import { postgresStatDatabaseCollector } from '../../../agent/collection/collectors/postgres/postgres-stat-database-collector.js';
import { DeadlineExceededError } from '../../../agent/collection/scheduler.js';
import { PostgresSource } from '../../../agent/sources/postgres-source.js';
import { snapshotSchema } from '../../../common/agent-protocol/snapshot.js';
import { metricCatalog } from '../../../common/metric-catalog.js';
import { createThrowawayPostgresDatabase } from '../../helpers/throwaway-postgres-database.js';

const logger = pino({ level: 'silent' });
const sourceOptions = { statementTimeoutMs: 5000, connectTimeoutMs: 2000 };
const reachable: Pingable = { ping: async () => undefined };

const fixed = (name: string, contribution: Awaited<ReturnType<Collector<Pingable>['collect']>>): Collector<Pingable> => ({
  name,
  collect: async () => contribution,
});

t.test('a failing collector costs only its own part of the snapshot', async (t) => {
  const runner = new CollectionRunner({
    source: reachable,
    logger,
    collectors: [
      fixed('version', { version: '15.2', counters: { a: 1 } }),
      { name: 'broken', collect: async () => Promise.reject(new Error('view is missing')) },
      fixed('connections', {
        values: { 'connections.active': 1, 'connections.idle': 2, 'connections.total': 3, 'connections.max': 100 },
        counters: { b: 2 },
      }),
    ],
  });
  const snapshot = await runner.collect(new Date('2026-01-01T00:00:00Z'));
  t.equal(snapshot.reachable, true);
  t.equal(snapshot.timestamp, '2026-01-01T00:00:00.000Z');
  t.equal(snapshot.version, '15.2');
  t.same(snapshot.metrics.connections, { active: 1, idle: 2, total: 3, max: 100 });
  t.same(snapshot.counters, { a: 1, b: 2 });
  t.same(
    snapshot.collectors.map(({ name, success, error }) => ({ name, success, error })),
    [
      { name: 'version', success: true, error: undefined },
      { name: 'broken', success: false, error: 'view is missing' },
      { name: 'connections', success: true, error: undefined },
    ],
  );
  t.ok(snapshot.collectors.every((outcome) => outcome.duration_ms >= 0));
  t.same(JSON.parse(JSON.stringify(snapshot)), snapshot, 'plain JSON');
});

t.test('a series whose key is longer than the protocol allows is left out, so the server takes the sample', async (t) => {
  const longNames = `pg_stat_user_tables_n_dead_tup{datname="${'d'.repeat(63)}",schemaname="${'s'.repeat(63)}",relname="${'r'.repeat(63)}"}`;
  const runner = new CollectionRunner({ source: reachable, logger, collectors: [fixed('tables', { counters: { [longNames]: 5, pg_up_like: 1 } })] });
  const snapshot = await runner.collect(new Date('2026-01-01T00:00:00Z'));
  t.same(snapshot.counters, { pg_up_like: 1 });
  t.ok(snapshotSchema(metricCatalog).safeParse(snapshot).success, 'the server-side schema accepts it');
});

t.test('the cycle deadline stops a hanging collector and the cycle still answers', async (t) => {
  const hanging: Collector<Pingable> = {
    name: 'hanging',
    collect: (_source, { signal }) =>
      new Promise((resolve, reject) => {
        const slow = setTimeout(() => resolve({}), 10_000);
        signal.addEventListener('abort', () => {
          clearTimeout(slow);
          reject(signal.reason);
        });
      }),
  };
  const runner = new CollectionRunner({
    source: reachable,
    logger,
    collectors: [fixed('first', { version: '1' }), hanging, fixed('late', { values: { database_size_bytes: 1 } })],
  });
  const deadline = new AbortController();
  setTimeout(() => deadline.abort(new DeadlineExceededError(200)), 200);
  const started = Date.now();
  const snapshot = await runner.collect(new Date(), deadline.signal);
  t.ok(Date.now() - started < 1000, 'returned soon after the deadline');
  t.equal(snapshot.version, '1');
  t.same(
    snapshot.collectors.map(({ name, success }) => [name, success]),
    [['first', true], ['hanging', false], ['late', false]],
    'collectors after the deadline do not run',
  );
  t.match(snapshot.collectors[1]?.error, /deadline of 200 ms exceeded/);
  t.match(snapshot.collectors[2]?.error, /deadline of 200 ms exceeded/, 'the reason is the deadline, for those not run too');
});

t.test('an unreachable database gives a snapshot that says so', async (t) => {
  const source = new PostgresSource(
    { host: '127.0.0.1', port: 1, database: 'none', username: 'postgres', ssl: false },
    sourceOptions,
  );
  t.teardown(() => source.close());
  const runner = new CollectionRunner({ source, logger, collectors: postgresCollectors });
  const snapshot = await runner.collect();
  t.equal(snapshot.reachable, false);
  t.match(snapshot.error, /ECONNREFUSED/);
  t.equal(snapshot.version, null);
  t.same(snapshot.collectors, []);
});

t.test('the source reconnects by itself after its session was killed', async (t) => {
  const database = await createThrowawayPostgresDatabase();
  const source = new PostgresSource(database.settings, sourceOptions);
  t.teardown(async () => {
    await source.close();
    await database.drop();
  });
  const runner = new CollectionRunner({ source, logger, collectors: postgresCollectors });
  t.equal((await runner.collect()).reachable, true);
  const killed = await database.admin(
    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'dbmon'",
    [database.name],
  );
  t.equal(killed.rowCount, 1, "killed the agent's session");
  const snapshot = await runner.collect();
  t.equal(snapshot.reachable, true, 'the next cycle opens a new session');
  t.ok(snapshot.collectors.every((outcome) => outcome.success), JSON.stringify(snapshot.collectors));
});

t.test('a rate is timed by when its counters were read, not by when the cycle began', async (t) => {
  // The agent's monotonic clock, moved by hand: a slow reconnect and a slow collector take as long as the test says.
  const clock = { ms: 0 };
  const slowPings = [2_500, 0];
  const slowCollector = [3_000, 0];
  class SlowToPing extends PostgresSource {
    override async ping(signal: AbortSignal): Promise<void> {
      clock.ms += slowPings.shift() ?? 0;
      return super.ping(signal);
    }
  }
  const database = await createThrowawayPostgresDatabase();
  const source = new SlowToPing(database.settings, sourceOptions);
  t.teardown(async () => {
    await source.close();
    await database.drop();
  });
  const countersReadAtMs: number[] = [];
  const runner = new CollectionRunner({
    source,
    logger,
    nowMs: () => clock.ms,
    collectors: [
      { name: 'slow', collect: async () => ((clock.ms += slowCollector.shift() ?? 0), {}) },
      { ...postgresStatDatabaseCollector, collect: (s, ctx) => (countersReadAtMs.push(clock.ms), postgresStatDatabaseCollector.collect(s, ctx)) },
    ],
  });
  const cycleStart = Date.parse('2026-01-01T00:00:00Z');
  const first = await runner.collect(new Date(cycleStart));
  const load = await database.connect();
  for (let i = 0; i < 20; i += 1) await load.query('SELECT 1');
  await load.end();
  // Backends report to the statistics view when idle, at most once a second.
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  clock.ms = 10_000;
  const second = await runner.collect(new Date(cycleStart + 10_000));

  const transactions = (snapshot: typeof first): number =>
    Object.entries(snapshot.counters)
      .filter(([key]) => /^pg_stat_database_xact_(commit|rollback)\{/.test(key))
      .reduce((sum, [, value]) => sum + value, 0);
  const increase = transactions(second) - transactions(first);
  t.ok(increase >= 20, `the load's transactions were counted (${increase})`);
  const readSeconds = (countersReadAtMs[1]! - countersReadAtMs[0]!) / 1000;
  t.equal(second.metrics.throughput.transactions_per_second, increase / readSeconds, `the rate is over the ${readSeconds} s between the counters' reads`);
  t.equal(
    (Date.parse(second.timestamp) - Date.parse(first.timestamp)) / 1000,
    readSeconds,
    "the samples' times are as far apart as the reads, so increase = rate × interval downstream too",
  );
  t.equal(first.timestamp, new Date(cycleStart + countersReadAtMs[0]!).toISOString(), 'stamped when the counters were read');
});
