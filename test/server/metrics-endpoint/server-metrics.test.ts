import { execFileSync } from 'node:child_process';
import t from 'tap';
import { metricCatalog } from '../../../common/metric-catalog.js';
import type { DatabaseRow } from '../../../server/databases/database-row.js';
import { ServerMetrics } from '../../../server/metrics-endpoint/server-metrics.js';
import type { SampleRow } from '../../../server/metrics/sample-row.js';
import { idleHealthSources } from '../../helpers/idle-health-sources.js';

function database(i: number, type: DatabaseRow['type']): DatabaseRow {
  return { id: `db_${i}`, name: i === 0 ? 'quote " and \\ back\nslash' : `db-${i}`, type } as DatabaseRow;
}

t.test('a scrape reads each database once and writes exporter names, job series and escapes, promtool-clean', async (t) => {
  const databases = [database(0, 'postgresql'), database(1, 'mysql'), database(2, 'mariadb')];
  let clock = Date.parse('2026-11-22T12:00:00Z');
  const sampleReads: string[] = [];
  const sampleOf = (id: string) => {
    const columns = Object.fromEntries(metricCatalog.map((metric) => [metric.column, 40]));
    return { ...columns, database_id: id, ts: clock, reachable: 1, latency_source: 'histogram' } as SampleRow;
  };
  const metrics = new ServerMetrics(
    {
      databases: () => databases,
      latestSample: (id) => {
        sampleReads.push(id);
        return sampleOf(id);
      },
      latestSamples: () => {
        sampleReads.push('all');
        return databases.map((row) => sampleOf(row.id));
      },
      latestSnapshots: () =>
        databases.map((row) => ({ database_id: row.id, ts: clock, reachable: 1, error: null, counters: JSON.stringify({ 'pg_stat_database_xact_commit{datid="5",datname="d"}': 7 }), collectors: '[]' })),
      agents: () => [],
      ...idleHealthSources,
      lastReachedAt: () => {
        throw new Error('read only for a database whose newest sample did not reach it');
      },
      now: () => new Date(clock),
    },
    metricCatalog,
  );
  metrics.jobBehindSince('rollups', clock - 3_000);
  metrics.jobSliceRan('rollups', 0.004);
  metrics.jobPassEnded('retention', 0.25, false);
  metrics.jobBehindSince('retention', null);

  const text = await metrics.metrics();
  t.same(sampleReads, ['all'], 'one view of the databases per scrape, their samples read at once');
  const labels = 'database_id="db_0",database_name="quote \\" and \\\\ back\\nslash"';
  t.match(text, `pg_up{${labels}} 1`);
  t.match(text, `dbmon_database_cpu_usage_ratio{${labels}} 0.4`);
  t.match(text, `dbmon_database_connections{${labels},state="active"} 40`);
  t.match(text, `dbmon_database_query_latency_seconds{${labels},stat="p95",source="histogram"} 0.04`);
  t.match(text, `pg_stat_database_xact_commit{${labels},datid="5",datname="d"} 7`);
  t.match(text, 'mysql_up{database_id="db_1",database_name="db-1"} 1');
  t.notMatch(text, 'pg_up{database_id="db_1"', 'exporter names only for their engine');
  t.match(text, 'dbmon_job_lag_seconds{job="rollups"} 3');
  t.match(text, `dbmon_database_ingest_lag_seconds{${labels}} 0`);
  t.match(text, `dbmon_database_last_success_timestamp_seconds{${labels}} ${clock / 1000}`, 'the newest sample reached it: not read again');
  t.match(text, 'dbmon_job_lag_seconds{job="retention"} 0');
  t.match(text, 'dbmon_job_slice_duration_seconds_bucket{le="0.005",job="rollups"} 1');
  t.match(text, 'dbmon_job_last_pass_duration_seconds{job="retention"} 0.25');
  t.match(text, 'dbmon_job_passes_total{job="retention",result="ok"} 1');
  t.equal(execFileSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' }).trim(), '', 'promtool check metrics reports nothing');
  clock += 2_000;
  t.match(await metrics.metrics(), 'dbmon_job_lag_seconds{job="rollups"} 5', 'lag grows while the pass is due');
});
