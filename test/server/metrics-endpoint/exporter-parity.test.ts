import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import type { ConnectionSettings } from '../../../agent/sources/connection-settings.js';
import { freePort } from '../../helpers/batch-receiver.js';
import { startDetached } from '../../helpers/detached-process.js';
import { startTestEmbeddedAgent } from '../../helpers/embedded-agent-under-test.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { createTenant, startTestServer } from '../../helpers/test-server.js';
import { createThrowawayMysqlDatabase } from '../../helpers/throwaway-mysql-database.js';
import { createThrowawayPostgresDatabase } from '../../helpers/throwaway-postgres-database.js';
import { waitUntil } from '../../helpers/wait-until.js';
import { mixinReaders, type MixinReader, type MixinSelector } from '../../fixtures/exporter-mixin-queries.js';

/**
 * Side by side, as a DBA would run them: Debian's Prometheus scraping Debian's postgres_exporter
 * and mysqld_exporter, and dbmon's per-database targets found through http_sd with the relabeling
 * the README documents, all on the same PostgreSQL and MariaDB under load. Whatever the mixins'
 * overview dashboards and rules read that answers for an exporter must answer for dbmon, with the
 * same labels.
 */
const work = tempDir(t, 'dbmon-parity-');
const postgres = await createThrowawayPostgresDatabase();
t.teardown(() => postgres.drop());
const mariadb = await createThrowawayMysqlDatabase();
t.teardown(() => mariadb.drop());

await postgres.admin(`ALTER DATABASE ${postgres.name} SET application_name = 'parity-load'`);
const pgbenchConnection = ['-h', postgres.settings.host, '-p', String(postgres.settings.port), '-U', postgres.settings.username];
execFileSync('pgbench', ['-i', '-s', '1', '-q', ...pgbenchConnection, postgres.name], { stdio: 'ignore' });
// Each second pgbench reports the transactions it completed in it: the reference for dbmon's rate.
const load = startDetached(t, 'pgbench', ['-c', '2', '-T', '120', '--rate', '200', '-P', '1', '--progress-timestamp', ...pgbenchConnection, postgres.name]);

const mariadbLoad = await mariadb.connect();
await mariadbLoad.query('CREATE TABLE items (id int PRIMARY KEY, name varchar(40) NOT NULL) ENGINE=InnoDB');
let loadRound = 0;
const mariadbLoadTimer = setInterval(() => {
  const id = loadRound++;
  mariadbLoad.query('INSERT INTO items VALUES (?, ?)', [id, `item ${id}`]).then(() => mariadbLoad.query('SELECT count(*) FROM items WHERE name LIKE ?', ['item%'])).catch(() => undefined);
}, 20);
t.teardown(() => clearInterval(mariadbLoadTimer));

// mysqld_exporter wants a password in its my.cnf: a user of its own, with the grants its README asks for.
const exporterUser = `parity_${randomBytes(4).toString('hex')}`;
const exporterPassword = randomBytes(12).toString('hex');
await mariadb.admin(`CREATE USER '${exporterUser}'@'127.0.0.1' IDENTIFIED BY '${exporterPassword}' WITH MAX_USER_CONNECTIONS 3`);
t.teardown(() => mariadb.admin(`DROP USER IF EXISTS '${exporterUser}'@'127.0.0.1'`));
await mariadb.admin(`GRANT PROCESS, REPLICATION CLIENT, SELECT ON *.* TO '${exporterUser}'@'127.0.0.1'`);

const token = randomBytes(16).toString('hex');
const server = await startTestServer({ metricsToken: token });
t.teardown(server.close);
const { key } = createTenant(server.services, server.clock.now);
async function monitor(name: string, type: string, database: { name: string; settings: ConnectionSettings }): Promise<string> {
  const { host, port, username, password } = database.settings;
  const created = await server.request('POST', '/v1/databases', {
    key,
    body: { name, type, connection: { host, port, database: database.name, username, ...(typeof password === 'string' && { password }) }, monitoring: { interval_seconds: 10 } },
  });
  if (created.status !== 201) throw new Error(`${name} is not monitored: ${created.text}`);
  return created.body.id as string;
}
const postgresId = await monitor('parity-postgres', 'postgresql', postgres);
await monitor('parity-mariadb', 'mariadb', mariadb);
startTestEmbeddedAgent(t, server);

const [postgresExporterPort, mysqldExporterPort, prometheusPort] = [await freePort(), await freePort(), await freePort()];
startDetached(t, 'prometheus-postgres-exporter', [`--web.listen-address=127.0.0.1:${postgresExporterPort}`], {
  // Its statistics views are the server's; on the monitored database its scrapes, each second, would add a tenth to the load's transactions.
  DATA_SOURCE_NAME: `postgresql://${postgres.settings.username}@${postgres.settings.host}:${postgres.settings.port}/postgres?sslmode=disable`,
});
const myCnf = join(work, 'my.cnf');
writeFileSync(myCnf, `[client]\nuser=${exporterUser}\npassword=${exporterPassword}\nhost=${mariadb.settings.host}\nport=${mariadb.settings.port}\n`, { mode: 0o600 });
startDetached(t, 'prometheus-mysqld-exporter', [`--web.listen-address=127.0.0.1:${mysqldExporterPort}`, `--config.my-cnf=${myCnf}`, '--collect.info_schema.processlist']);

const tokenFile = join(work, 'dbmon-metrics-token');
writeFileSync(tokenFile, token, { mode: 0o600 });
const dbmonAddress = new URL(server.url).host;
function dbmonJob(jobName: string, engines: string) {
  return {
    job_name: jobName,
    authorization: { credentials_file: tokenFile },
    http_sd_configs: [{ url: `${server.url}/metrics/targets`, refresh_interval: '1s', authorization: { type: 'Bearer', credentials_file: tokenFile } }],
    relabel_configs: [
      { source_labels: ['__meta_dbmon_engine'], regex: engines, action: 'keep' },
      { source_labels: ['__address__'], target_label: 'instance' },
      { target_label: '__address__', replacement: dbmonAddress },
    ],
  };
}
// JSON is YAML: the configuration as the README writes it, with this run's addresses.
const prometheusConfig = {
  global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
  scrape_configs: [
    dbmonJob('dbmon-postgres', 'postgresql'),
    dbmonJob('dbmon-mysql', 'mysql|mariadb'),
    { job_name: 'exporter-postgres', static_configs: [{ targets: [`127.0.0.1:${postgresExporterPort}`] }] },
    { job_name: 'exporter-mysql', static_configs: [{ targets: [`127.0.0.1:${mysqldExporterPort}`] }] },
  ],
};
const prometheusConfigFile = join(work, 'prometheus.yml');
writeFileSync(prometheusConfigFile, JSON.stringify(prometheusConfig));
execFileSync('promtool', ['check', 'config', prometheusConfigFile], { stdio: 'ignore' });
const prometheusUrl = `http://127.0.0.1:${prometheusPort}`;
const prometheus = startDetached(t, 'prometheus', [
  `--config.file=${prometheusConfigFile}`,
  `--storage.tsdb.path=${join(work, 'tsdb')}`,
  `--web.listen-address=127.0.0.1:${prometheusPort}`,
  '--log.level=warn',
]);

interface PrometheusSeries {
  metric: Record<string, string>;
}
async function instantQuery(query: string): Promise<PrometheusSeries[]> {
  const response = await fetch(`${prometheusUrl}/api/v1/query?${new URLSearchParams({ query })}`);
  const body = (await response.json()) as { status: string; data?: { result: PrometheusSeries[] }; error?: string };
  if (body.status !== 'success') throw new Error(`${query}: ${body.error}`);
  return body.data!.result;
}

const jobs = { postgresql: { exporter: 'exporter-postgres', dbmon: 'dbmon-postgres' }, mysql: { exporter: 'exporter-mysql', dbmon: 'dbmon-mysql' } } as const;
const upQueries = Object.values(jobs).flatMap(({ exporter, dbmon }) => [`up{job="${exporter}"} == 1`, `up{job="${dbmon}"} == 1`]);
await waitUntil(
  'every target up and a sample of each database on dbmon',
  async () => {
    try {
      const answers = await Promise.all([...upQueries, 'pg_stat_database_xact_commit{job="dbmon-postgres"}', 'mysql_global_status_queries{job="dbmon-mysql"}'].map(instantQuery));
      return answers.every((result) => result.length > 0);
    } catch {
      return false;
    }
  },
  40_000,
).catch((error: Error) => {
  throw new Error(`${error.message}\nprometheus said: ${prometheus.output()}`);
});

/** The label names a selector's answer carries besides the target's. */
function labelNames(series: readonly PrometheusSeries[], targetLabels: readonly string[]): string[] {
  const names = new Set(series.flatMap(({ metric }) => Object.keys(metric)));
  for (const name of ['__name__', 'job', 'instance', ...targetLabels]) names.delete(name);
  return [...names].sort();
}

// postgres_exporter labels its series with the address it connected to (`server`); dbmon's relabeling puts that address in `instance`.
const exporterTargetLabels = ['server'];

function selectorFor(selector: MixinSelector, job: string): string {
  return `${selector.metric}{${[`job="${job}"`, selector.matchers].filter(Boolean).join(',')}}`;
}

async function checkReader(t: Test, reader: MixinReader): Promise<void> {
  const { exporter, dbmon } = jobs[reader.engine];
  const exporterSilent: string[] = [];
  for (const selector of reader.selectors) {
    const [fromExporter, fromDbmon] = await Promise.all([instantQuery(selectorFor(selector, exporter)), instantQuery(selectorFor(selector, dbmon))]);
    if (fromExporter.length === 0) {
      exporterSilent.push(selector.metric);
      continue;
    }
    const what = `${selectorFor(selector, dbmon)} (${selector.usedBy})`;
    if (!t.ok(fromDbmon.length > 0, `${what} answers`)) continue;
    t.same(labelNames(fromDbmon, []), labelNames(fromExporter, exporterTargetLabels), `${what} has the exporter's labels`);
    for (const label of selector.labels) t.ok(fromDbmon.every(({ metric }) => metric[label] !== undefined), `${what} carries ${label}`);
  }
  t.comment(`not answered by the exporter either, on this server: ${exporterSilent.join(', ') || 'none'}`);
}

for (const reader of mixinReaders) {
  t.test(`what the ${reader.name} read answers for dbmon as for the exporter`, (t) => checkReader(t, reader));
}

t.test("the postgres dashboard's db variable offers the monitored database, each target its own instance", async (t) => {
  const variable = await instantQuery(`pg_stat_database_tup_fetched{job="dbmon-postgres",datname!~"template.*|postgres"}`);
  t.same(
    variable.map(({ metric }) => [metric.datname, metric.instance]),
    [[postgres.name, `${postgres.settings.host}:${postgres.settings.port}`]],
  );
});

t.test('the largest tables: pgbench_accounts with its rows, for the vacuum alert the exporter of this version cannot feed', async (t) => {
  const accounts = await instantQuery(`pg_stat_user_tables_n_live_tup{job="dbmon-postgres",relname="pgbench_accounts"}`);
  t.same(
    accounts.map(({ metric }) => [metric.datname, metric.schemaname]),
    [[postgres.name, 'public']],
  );
  t.ok((await instantQuery('pg_stat_user_tables_n_dead_tup{job="dbmon-postgres"}')).length >= 4, 'every pgbench table');
});

t.test('promtool check metrics is clean on /metrics and on a database of its own', async (t) => {
  const headers = { authorization: `Bearer ${token}` };
  for (const path of ['/metrics', `/metrics/databases/${postgresId}`]) {
    const text = (await server.request('GET', path, { headers })).text;
    t.equal(execFileSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' }).trim(), '', `${path} is clean`);
  }
});

/** pgbench's progress reports: at each time (seconds since the epoch), the rate of the second before it. */
function pgbenchProgress(output: string): { at: number; tps: number }[] {
  return [...output.matchAll(/^progress: ([\d.]+) s, ([\d.]+) tps/gm)].map(([, at, tps]) => ({ at: Number(at), tps: Number(tps) }));
}

/** The transactions pgbench reports between two times, each report's rate spread over its second. */
function pgbenchTransactions(progress: readonly { at: number; tps: number }[], from: number, to: number): number {
  return progress.reduce((sum, { at, tps }, i) => {
    const start = i === 0 ? at - 1 : progress[i - 1]!.at;
    return sum + tps * Math.max(0, Math.min(at, to) - Math.max(start, from));
  }, 0);
}

t.test("dbmon's transaction rate agrees with pgbench's own within 5 %", async (t) => {
  // The agent samples on real time; the test server's clock stands still.
  const window = { from: new Date(Date.now() - 600_000).toISOString(), to: new Date(Date.now() + 600_000).toISOString() };
  const path = `/v1/databases/${postgresId}/metrics/history?${new URLSearchParams({ metrics: 'throughput.transactions_per_second', resolution: 'raw', ...window })}`;
  // Each sample's rate is over the interval since the one before. Three intervals: the backends
  // flush their statistics up to a second late, which over one 10 s interval is as much as 10 %.
  const intervals = 3;
  let samples: { at: number; tps: number | null }[] = [];
  await waitUntil(
    'three rates of the load from dbmon, and pgbench past them',
    async () => {
      const { data } = (await server.request('GET', path, { key })).body as { data: { timestamp: string; metrics: Record<string, number | null> }[] };
      samples = data.map(({ timestamp, metrics }) => ({ at: Date.parse(timestamp) / 1000, tps: metrics['throughput.transactions_per_second'] ?? null }));
      return samples.length > intervals && (pgbenchProgress(load.output()).at(-1)?.at ?? 0) > samples[intervals]!.at;
    },
    45_000,
  );
  const measured = samples.slice(0, intervals + 1);
  const [from, to] = [measured[0]!.at, measured[intervals]!.at];
  const dbmonTransactions = measured.slice(1).reduce((sum, { at, tps }, i) => sum + (tps ?? NaN) * (at - measured[i]!.at), 0);
  const dbmonRate = dbmonTransactions / (to - from);
  const pgbenchRate = pgbenchTransactions(pgbenchProgress(load.output()), from, to) / (to - from);
  t.ok(pgbenchRate > 100, `pgbench ran at ${pgbenchRate.toFixed(1)} TPS`);
  t.ok(Math.abs(dbmonRate - pgbenchRate) / pgbenchRate < 0.05, `dbmon ${dbmonRate.toFixed(2)} TPS vs pgbench ${pgbenchRate.toFixed(2)} over ${(to - from).toFixed(1)} s`);
});
