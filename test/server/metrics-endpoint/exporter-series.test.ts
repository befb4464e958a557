import t from 'tap';
import { metricCatalog } from '../../../common/metric-catalog.js';
import type { DatabaseRow } from '../../../server/databases/database-row.js';
import { ServerMetrics } from '../../../server/metrics-endpoint/server-metrics.js';
import type { SampleRow } from '../../../server/metrics/sample-row.js';
import { idleHealthSources } from '../../helpers/idle-health-sources.js';

const postgres = { id: 'db_pg', name: 'orders', type: 'postgresql', host: 'pg.example', port: 5432 } as DatabaseRow;

/** A server whose only database's latest snapshot carries these counters, as an agent reported them. */
function scrapeOf(counters: Record<string, number>, collectors = '[]'): ServerMetrics {
  const ts = Date.parse('2026-11-24T06:00:00Z');
  return new ServerMetrics(
    {
      databases: () => [postgres],
      latestSample: () => undefined as SampleRow | undefined,
      latestSamples: () => [],
      latestSnapshots: () => [{ database_id: postgres.id, ts, reachable: 1, error: null, counters: JSON.stringify(counters), collectors }],
      agents: () => [],
      ...idleHealthSources,
      now: () => new Date(ts),
    },
    metricCatalog,
  );
}

const seriesLines = (text: string, name: string) => text.split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));

t.test('an agent cannot forge series: only catalog families of the engine, with exactly their labels, reach /metrics', async (t) => {
  const text = await scrapeOf({
    pg_up: 0,
    dbmon_database_up: 0,
    mysql_global_status_questions: 5,
    'pg_stat_database_xact_commit{datid="1",datname="x"} 1\nforged_metric{a="b"}': 9,
    'pg_locks_count{mode="exclusivelock"}': 1,
    'pg_locks_count{datname="orders",mode="exclusivelock",extra="y"}': 1,
    'pg_stat_activity_count{datname="orders\\",state="active"}': 1,
    'pg_stat_activity_count{state="active",datname="orders"}': 1,
    'pg_stat_database_xact_commit{datid="16384",datname="orders"}': 3,
  }).metrics();
  t.same(seriesLines(text, 'pg_up'), ['pg_up{database_id="db_pg",database_name="orders"} 1'], "pg_up is the server's reading, never the agent's");
  t.same(seriesLines(text, 'dbmon_database_up'), ['dbmon_database_up{database_id="db_pg",database_name="orders"} 1']);
  t.same(seriesLines(text, 'mysql_global_status_questions'), [], "another engine's family is dropped");
  t.notMatch(text, 'forged_metric', 'a key cannot add a line');
  t.same(seriesLines(text, 'pg_locks_count'), [], 'labels missing or extra: dropped');
  t.same(seriesLines(text, 'pg_stat_activity_count'), [], 'broken escaping or labels out of order: dropped');
  t.same(seriesLines(text, 'pg_stat_database_xact_commit'), [
    'pg_stat_database_xact_commit{database_id="db_pg",database_name="orders",datid="16384",datname="orders"} 3',
  ]);
});

t.test('last_scrape_error says whether a collector failed in the last collection', async (t) => {
  const failed = JSON.stringify([{ name: 'pg_locks', duration_ms: 1, success: false, error: 'permission denied' }, { name: 'pg_database', duration_ms: 1, success: true }]);
  t.same(seriesLines(await scrapeOf({}, failed).metrics(), 'pg_exporter_last_scrape_error'), ['pg_exporter_last_scrape_error{database_id="db_pg",database_name="orders"} 1']);
  t.same(seriesLines(await scrapeOf({}).metrics(), 'pg_exporter_last_scrape_error'), ['pg_exporter_last_scrape_error{database_id="db_pg",database_name="orders"} 0']);
  t.same(seriesLines(await scrapeOf({}).metrics(), 'mysql_exporter_last_scrape_error'), []);
});
