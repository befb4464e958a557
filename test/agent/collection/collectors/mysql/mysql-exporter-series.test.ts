import { randomBytes } from 'node:crypto';
import pino from 'pino';
import t from 'tap';
import { mysqlCollectors } from '../../../../../agent/collection/collectors/mysql/mysql-collectors.js';
import { mysqlReplicaStatusCollector } from '../../../../../agent/collection/collectors/mysql/mysql-replica-status-collector.js';
import { MysqlSource } from '../../../../../agent/sources/mysql-source.js';
import { collectionRunner, mysqlSourceOn } from '../../../../helpers/collection-under-test.js';
import { createThrowawayMysqlDatabase } from '../../../../helpers/throwaway-mysql-database.js';

const database = await createThrowawayMysqlDatabase();
const source = mysqlSourceOn(t, database);

t.test("mysqld_exporter's series from the real engine: commands, handlers, buffer pool, variables, threads", async (t) => {
  const client = await database.connect();
  t.teardown(() => client.end());
  await client.query('CREATE TABLE notes (id int PRIMARY KEY) ENGINE=InnoDB');
  await client.query('INSERT INTO notes VALUES (1), (2)');

  const snapshot = await collectionRunner(source, mysqlCollectors).collect();
  t.ok(snapshot.collectors.every((outcome) => outcome.success), JSON.stringify(snapshot.collectors));
  const { counters } = snapshot;
  const [status] = await database.admin("SHOW GLOBAL STATUS LIKE 'Com_create_table'");
  t.ok((counters['mysql_global_status_commands_total{command="create_table"}'] ?? 0) >= 1);
  t.ok((counters['mysql_global_status_commands_total{command="create_table"}'] ?? Infinity) <= Number(status?.Value));
  t.ok((counters['mysql_global_status_handlers_total{handler="write"}'] ?? 0) >= 2, 'the two rows written');
  for (const state of ['data', 'free', 'total']) t.type(counters[`mysql_global_status_buffer_pool_pages{state="${state}"}`], 'number', state);
  t.notOk(Object.keys(counters).some((key) => key.includes('state="flushed"')), 'flushed pages are a counter of another family');
  const [variables] = await database.admin('SELECT @@innodb_buffer_pool_size AS pool, @@table_open_cache AS tables');
  t.equal(counters.mysql_global_variables_innodb_buffer_pool_size, Number(variables?.pool));
  t.equal(counters.mysql_global_variables_table_open_cache, Number(variables?.tables));
  for (const name of ['threads_connected', 'open_tables', 'table_open_cache_hits', 'innodb_page_size', 'uptime']) {
    t.type(counters[`mysql_global_status_${name}`], 'number', name);
  }
  t.ok((counters['mysql_info_schema_processlist_threads{command="sleep",state="unknown"}'] ?? 0) >= 1, 'the idle test session');
});

t.test("the rates of the server's counters the mysqld mixin graphs: what the counters on /metrics rose by, per second", async (t) => {
  const client = await database.connect();
  t.teardown(() => client.end());
  await client.query('CREATE TABLE rated (id int PRIMARY KEY, note varchar(20)) ENGINE=InnoDB');
  const innodbRows = await database.admin("SHOW GLOBAL STATUS LIKE 'Innodb\\_rows\\_%'");
  const runner = collectionRunner(source, mysqlCollectors);
  const start = Date.now();
  const before = await runner.collect(new Date(start));
  t.equal(before.metrics.rates.mysql_global_status_questions, null, 'no rate before a second cycle');
  await client.query("INSERT INTO rated VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')");
  await client.query("UPDATE rated SET note = 'z' WHERE id <= 2");
  await client.query('DELETE FROM rated WHERE id = 4');
  await client.query('SELECT * FROM rated');
  const after = await runner.collect(new Date(start + 10_000));
  const { rates } = after.metrics;
  // Per second of the interval between the samples' times, those of the counters' reads.
  const seconds = (Date.parse(after.timestamp) - Date.parse(before.timestamp)) / 1000;
  const rose = (series: string) => (after.counters[series]! - before.counters[series]!) / seconds;
  for (const [operation, atLeast] of [['inserted', 4], ['updated', 2], ['deleted', 1], ['read', 3]] as const) {
    const rate = rates[`mysql_global_status_innodb_rows_${operation}`];
    if (innodbRows.length === 0) {
      t.equal(rate, null, `InnoDB rows ${operation}: none where the server reports none (MariaDB)`);
      continue;
    }
    t.equal(rate, rose(`mysql_global_status_innodb_row_ops_total{operation="${operation}"}`), `InnoDB rows ${operation}`);
    // Server-wide: other sessions' rows count too, never fewer than ours.
    t.ok(rate! >= atLeast / 10, `${operation}: ${rate}/s`);
  }
  for (const name of ['queries', 'questions', 'slow_queries', 'bytes_received', 'bytes_sent', 'created_tmp_tables', 'created_tmp_disk_tables'] as const) {
    t.equal(rates[`mysql_global_status_${name}`], rose(`mysql_global_status_${name}`), name);
  }
  t.ok(rates.mysql_global_status_questions! >= 5 / 10, 'our five statements at least');
  t.equal(rates.pg_stat_database_xact_commit, null, "another engine's rates are null");
});

t.test('replica status: none on a server that replicates nothing, none and no failure for an account without the grant', async (t) => {
  const signal = new AbortController().signal;
  const context = { signal, now: new Date(), logger: pino({ level: 'silent' }) };
  t.same(await mysqlReplicaStatusCollector.collect(source, context), { counters: {} });

  const user = `norepl_${randomBytes(4).toString('hex')}`;
  const password = randomBytes(12).toString('hex');
  await database.admin(`CREATE USER '${user}'@'127.0.0.1' IDENTIFIED BY '${password}'`);
  t.teardown(() => database.admin(`DROP USER IF EXISTS '${user}'@'127.0.0.1'`));
  await database.admin(`GRANT SELECT ON \`${database.name}\`.* TO '${user}'@'127.0.0.1'`);
  const ungranted = new MysqlSource({ ...database.settings, username: user, password }, { statementTimeoutMs: 5000, connectTimeoutMs: 5000 });
  t.teardown(() => ungranted.close());
  await t.rejects(ungranted.query('SHOW ALL SLAVES STATUS', [], signal), { code: 'ER_SPECIFIC_ACCESS_DENIED_ERROR' }, 'the server refuses it');
  t.same(await mysqlReplicaStatusCollector.collect(ungranted, context), {});
});
