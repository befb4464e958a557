import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { metricCatalog } from '../../../common/metric-catalog.js';
import { runPass } from '../../../server/jobs/background-job.js';
import { composeServices } from '../../../server/compose-services.js';
import { databaseFileName, openStateDir } from '../../../server/state-dir.js';
import { migrate } from '../../../server/storage/migrate.js';
import { makeSnapshot } from '../../helpers/snapshot-factory.js';
import { passEnded } from '../../helpers/crash-state.js';
import { spawnServer } from '../../helpers/spawn-server.js';
import { createTenant } from '../../helpers/test-server.js';
import { tempDir } from '../../helpers/temp-dir.js';

// A state directory of the schema before migration 0009 (rollups without value counts, none of
// 0030's engine counter rates, no 0031 sealed hours, no 0032 rollup blocks, samples in arrival order
// before 0033), with folded and not yet folded samples, opened by the built server: every value reads back, also once
// the seal jobs have sealed the closed hours (raw samples and rollups) folded before the upgrade into blocks.

const minute = 60_000;

t.test('a state directory of the previous schema upgrades in place and reads every value back', async (t) => {
  const stateDir = tempDir(t, 'dbmon-upgrade-');
  const now = new Date(Math.floor(Date.now() / minute) * minute);
  const from = now.getTime() - 3 * 3_600_000;
  const { db, secretKey } = openStateDir(stateDir, undefined);
  migrate(db);
  const { services } = composeServices(db, secretKey, { startedAt: now });
  const tenant = createTenant(services, now);
  const databaseIds = ['a', 'b'].map(
    (name) => services.databases.create(tenant.orgId, { name, type: 'postgresql', agent_id: null, connection: { host: 'h', database: 'd', username: 'u', ssl: false }, monitoring: { enabled: true, interval_seconds: 10 } }, now).id,
  );
  const snapshot = (i: number, d: number) =>
    makeSnapshot(new Date(from + i * 10_000), { metrics: { cpu_usage: (i * 7 + d) % 101, connections: { active: i % 5, idle: d, total: (i % 5) + d, max: 50 } } });
  const ingest = (first: number, count: number) => {
    for (let start = first; start < first + count; start += 250) {
      const samples = Array.from({ length: Math.min(250, first + count - start) }, (_, k) =>
        databaseIds.map((id, d) => ({ database_id: id, snapshot: snapshot(start + k, d) })),
      ).flat();
      services.ingest.ingest({ kind: 'embedded' }, { batch_id: `upgrade-batch-${String(start).padStart(8, '0')}`, samples }, now);
    }
  };
  // Two hours folded by the server of the previous schema, the third hour stored after its last fold.
  ingest(0, 720);
  runPass(services.rollups, now);
  ingest(720, 360);
  // Back to the schema before 0009: without the rollups' value counts, nor the columns 0030 added.
  const addedBy0030 = metricCatalog.filter((metric) => metric.path.startsWith('rates.'));
  for (const { column } of addedBy0030) {
    db.exec(`ALTER TABLE samples DROP COLUMN ${column}`);
    for (const stat of ['avg', 'min', 'max']) db.exec(`ALTER TABLE sample_rollups DROP COLUMN ${column}_${stat}`);
  }
  const dropped = metricCatalog.map((metric) => `${metric.column}_count`);
  for (const column of dropped) db.exec(`ALTER TABLE sample_rollups DROP COLUMN ${column}`);
  // And before 0031: raw samples only as rows.
  db.exec('DROP TABLE sample_hours');
  // And before 0033: the rows in a rowid table in arrival order (those not folded numbered above the
  // watermark), with a unique index on (database_id, ts).
  const columns = (db.prepare('PRAGMA table_info(samples)').all() as { name: string; type: string; notnull: number }[]).map(
    (column) => `${column.name} ${column.type}${column.notnull ? ' NOT NULL' : ''}${column.name === 'database_id' ? ' REFERENCES databases (id) ON DELETE CASCADE' : ''}`,
  );
  db.exec(`CREATE TABLE samples_by_arrival (id INTEGER PRIMARY KEY, ${columns.join(', ')}, UNIQUE (database_id, ts));
    INSERT INTO samples_by_arrival
      SELECT coalesce(p.seq, row_number() OVER (PARTITION BY p.seq IS NULL ORDER BY s.ts, s.database_id)), s.*
      FROM samples s LEFT JOIN samples_pending p ON p.database_id = s.database_id AND p.ts = s.ts;
    DROP TABLE samples_pending;
    DROP TABLE samples;
    ALTER TABLE samples_by_arrival RENAME TO samples;`);
  db.exec('DELETE FROM schema_migrations WHERE version IN (9, 30, 31, 33)');
  const rawRows = db.prepare('SELECT database_id, ts, cpu_usage, connections_active FROM samples ORDER BY database_id, ts').all() as {
    database_id: string;
    ts: number;
    cpu_usage: number;
    connections_active: number;
  }[];
  db.close();

  const server = await spawnServer(t, { DBMON_STATE_DIR: stateDir });
  t.teardown(() => server.stop());
  t.ok(readdirSync(join(stateDir, 'backups')).length > 0, 'the previous database was backed up before migrating');
  // The rows of the closed hours are sealed by the seal jobs after start-up: the reads below read their blocks.
  await passEnded(server, 'seal');
  await passEnded(server, 'rollup_seal');
  const state = new Database(join(stateDir, databaseFileName), { readonly: true });
  const sealedHours = state.prepare('SELECT count(*) FROM sample_hours').pluck().get() as number;
  const sealedSpans = state.prepare("SELECT count(*) FROM rollup_blocks WHERE resolution = '1m'").pluck().get() as number;
  state.close();
  t.ok(sealedHours >= 2 * databaseIds.length, `the closed hours are sealed (${sealedHours})`);
  t.ok(sealedSpans > 0, 'hours folded before the upgrade sealed into rollup blocks');
  const history = async (id: string, resolution: string) => {
    const query = `metrics=cpu_usage,connections.active&from=${new Date(from).toISOString()}&to=${now.toISOString()}&resolution=${resolution}`;
    const response = await fetch(`${server.url}/v1/databases/${id}/metrics/history?${query}`, { headers: { authorization: `Bearer ${tenant.key}` } });
    t.equal(response.status, 200);
    return ((await response.json()) as { data: { timestamp: string; metrics: Record<string, unknown> }[] }).data;
  };
  for (const id of databaseIds) {
    const rows = rawRows.filter((row) => row.database_id === id);
    t.equal(rows.length, 1080);
    const raw = (await history(id, 'raw')).map((point) => [point.timestamp, point.metrics.cpu_usage, point.metrics['connections.active']]);
    t.same(raw, rows.map((row) => [new Date(row.ts).toISOString(), row.cpu_usage, row.connections_active]), 'every raw value');
    for (const [resolution, width] of [['1m', minute], ['1h', 60 * minute]] as const) {
      const buckets = new Map<number, typeof rows>();
      for (const row of rows) buckets.set(Math.floor(row.ts / width) * width, [...(buckets.get(Math.floor(row.ts / width) * width) ?? []), row]);
      const stats = (values: number[]) => ({ avg: values.reduce((a, b) => a + b, 0) / values.length, min: Math.min(...values), max: Math.max(...values) });
      const expected = [...buckets.entries()].map(([start, inBucket]) => ({
        timestamp: new Date(start).toISOString(),
        metrics: { cpu_usage: stats(inBucket.map((row) => row.cpu_usage)), 'connections.active': stats(inBucket.map((row) => row.connections_active)) },
      }));
      // Within the values' precision: a sealed bucket keeps its mean as a sum at the metric's step.
      const got = await history(id, resolution);
      t.same(
        got.map((point) => point.timestamp),
        expected.map((point) => point.timestamp),
        `every ${resolution} bucket, folded before the upgrade or not`,
      );
      const off = got.flatMap((point, i) =>
        Object.entries(expected[i]!.metrics).flatMap(([metric, stats]) =>
          Object.entries(stats).map(([stat, value]) => Math.abs((point.metrics[metric] as Record<string, number>)[stat]! - value)),
        ),
      );
      t.ok(Math.max(...off) <= 0.0005, `every ${resolution} value within half a step (off by ${Math.max(...off)} at most)`);
    }
  }
});
