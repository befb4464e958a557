import { join } from 'node:path';
import t from 'tap';
import type { Assignment } from '../../../agent/assignments/assignment.js';
import { CollectionRunner } from '../../../agent/collection/collection-runner.js';
import type { Collector, Pingable } from '../../../agent/collection/collector.js';
import { mysqlCollectors } from '../../../agent/collection/collectors/mysql/mysql-collectors.js';
import { postgresCollectors } from '../../../agent/collection/collectors/postgres/postgres-collectors.js';
import type { DatabaseCollection } from '../../../agent/collection/database-collection.js';
import { HttpTransport } from '../../../agent/delivery/http-transport.js';
import type { Snapshot } from '../../../common/agent-protocol/snapshot.js';
import type { ConnectionSettings } from '../../../agent/sources/connection-settings.js';
import { MysqlSource } from '../../../agent/sources/mysql-source.js';
import { PostgresSource } from '../../../agent/sources/postgres-source.js';
import { startAgent } from '../../../agent/start-agent.js';
import { startBatchReceiver } from '../../helpers/batch-receiver.js';
import { captureLogger } from '../../helpers/capture-logger.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { createThrowawayMysqlDatabase } from '../../helpers/throwaway-mysql-database.js';
import { createThrowawayPostgresDatabase } from '../../helpers/throwaway-postgres-database.js';
import { waitUntil } from '../../helpers/wait-until.js';

t.setTimeout(120_000);

const deadlineMs = 1000;
/** Far beyond the deadline: only the agent's own cancel can end the hanging statement in time. */
const sourceOptions = { statementTimeoutMs: 60_000, connectTimeoutMs: 5000 };

/** Runs a statement that hangs far longer than the deadline, after the engine's own collectors. */
function hanging<S extends { query(sql: string, params: readonly unknown[], signal: AbortSignal): Promise<unknown> }>(sql: string): Collector<S> {
  return {
    name: 'hanging',
    collect: async (source, { signal }) => {
      await source.query(sql, [], signal);
      return {};
    },
  };
}

interface HangingDatabase {
  settings: ConnectionSettings;
  /** The agent's source on it, its engine's collectors and then the hanging one. */
  collection(): { source: Pingable & { close(): Promise<void> }; runner: CollectionRunner<Pingable> };
  /** How many of the agent's hanging statements the server still runs. */
  stillRunning(): Promise<number>;
  drop(): Promise<void>;
}

const engines: { type: Assignment['type']; open: () => Promise<HangingDatabase> }[] = [
  {
    type: 'postgresql',
    async open() {
      const database = await createThrowawayPostgresDatabase();
      const running = "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND query LIKE '%hanging_statement%' AND pid <> pg_backend_pid()";
      return {
        settings: database.settings,
        collection: () => {
          const source = new PostgresSource(database.settings, sourceOptions);
          const collectors = [...postgresCollectors, hanging<PostgresSource>('SELECT pg_sleep(30) AS hanging_statement')];
          return { source, runner: new CollectionRunner({ source, collectors, logger: captureLogger().logger }) as CollectionRunner<Pingable> };
        },
        stillRunning: async () => Number((await database.admin(running, [database.name])).rows[0].n),
        drop: () => database.drop(),
      };
    },
  },
  {
    type: 'mariadb',
    async open() {
      const database = await createThrowawayMysqlDatabase();
      const running = "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE INFO LIKE '%hanging\\_statement%' AND ID <> CONNECTION_ID()";
      return {
        settings: database.settings,
        collection: () => {
          const source = new MysqlSource(database.settings, sourceOptions);
          const collectors = [...mysqlCollectors, hanging<MysqlSource>('SELECT SLEEP(30) AS hanging_statement')];
          return { source, runner: new CollectionRunner({ source, collectors, logger: captureLogger().logger }) as CollectionRunner<Pingable> };
        },
        stillRunning: async () => Number((await database.admin(running))[0]!.n),
        drop: () => database.drop(),
      };
    },
  },
];

for (const engine of engines) {
  t.test(`${engine.type}: a hanging statement ends the cycle at the scheduler's deadline, is cancelled and counted; the next cycle runs`, async (t) => {
    const database = await engine.open();
    t.teardown(() => database.drop());
    const dir = tempDir(t);
    const receiver = await startBatchReceiver({ dbFile: join(dir, 'received.db') });
    t.teardown(receiver.close);

    const snapshots: Snapshot[] = [];
    const createCollection = (): DatabaseCollection => {
      const { source, runner } = database.collection();
      return {
        collect: async (now, signal) => {
          const snapshot = await runner.collect(now, signal);
          snapshots.push(snapshot);
          return snapshot;
        },
        close: () => source.close(),
      };
    };
    const transport = new HttpTransport({ serverUrl: receiver.url, agentKey: 'dbm_sak_x', version: 'test', hostname: 'h', timeoutMs: 2000 });
    const id = 'db_hanging';
    const agent = startAgent({
      transport,
      assignments: transport,
      spoolPath: join(dir, 'spool.db'),
      maxSpoolSamples: 1000,
      logger: captureLogger().logger,
      statusLogIntervalMs: 0,
      maxCycleDeadlineMs: deadlineMs,
      createCollection,
      localDatabases: [{ id, name: id, type: engine.type, interval_seconds: 2, connection: { ...database.settings, password: database.settings.password ?? null } }],
    });
    t.teardown(() => agent.stop());

    await waitUntil('a first cycle to end', async () => (agent.status().cycles[id]?.lastDurationMs ?? null) !== null, 30_000);
    const first = agent.status().cycles[id]!;
    t.equal(first.timeouts, 1, 'the cycle is counted as a timeout');
    t.equal(first.failures, 0);
    t.ok(first.lastDurationMs! >= deadlineMs - 50 && first.lastDurationMs! < deadlineMs + 1000, `ended at the deadline (${first.lastDurationMs} ms)`);
    await waitUntil('the hanging statement to be cancelled on the server', async () => (await database.stillRunning()) === 0, 2000);

    const [snapshot] = snapshots;
    t.equal(snapshot?.reachable, true);
    t.match(snapshot?.collectors.find((outcome) => outcome.name === 'hanging'), { success: false, error: /deadline of 1000 ms exceeded/ });
    t.ok(snapshot?.collectors.filter((outcome) => outcome.name !== 'hanging').every((outcome) => outcome.success), 'the collectors before it kept their part');

    await waitUntil('the next cycle to run and time out too', async () => (agent.status().cycles[id]?.timeouts ?? 0) >= 2, 30_000);
    t.ok(agent.status().cycles[id]!.runs >= 2);
    await waitUntil('both timed-out cycles to be delivered', async () => receiver.storedSamples().filter((sample) => sample.database_id === id).length >= 2, 30_000);
  });
}
