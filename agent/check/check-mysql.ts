import { readReplicaStatus } from '../collection/collectors/mysql/mysql-replica-status-collector.js';
import type { MysqlSession } from '../sources/mysql-session.js';
import { numberOf, textOf, type Row } from '../sources/row.js';
import { missing, ok, warning, type Requirement } from './requirement.js';

/** The performance_schema consumers the statement digests need (statements_digest hangs under global_instrumentation). */
const consumers = ['global_instrumentation', 'statements_digest'] as const;

/**
 * What the agent needs on one MySQL/MariaDB database, as the collectors and the advisor use it:
 * PROCESS (every connection in PROCESSLIST), performance_schema on with its digest consumers and
 * statement instruments, SELECT on performance_schema and on the database; optionally UPDATE on
 * performance_schema.threads (the agent's own statements kept out of the digests), the latency
 * histogram, the replica status and ALTER (applying an index).
 */
export async function checkMysql(session: MysqlSession): Promise<Requirement[]> {
  const [who] = await session.query('SELECT CURRENT_USER() AS account, @@performance_schema AS performance_schema');
  const account = textOf(who!.account);
  const at = account.lastIndexOf('@');
  const grantee = `'${account.slice(0, at)}'@'${account.slice(at + 1)}'`;
  const database = session.schema;
  const privileges = await privilegesOf(session, grantee, database);
  const results: Requirement[] = [
    privileges.has('PROCESS')
      ? ok('PROCESS', 'every connection is visible in PROCESSLIST')
      : missing('PROCESS', 'without PROCESS, PROCESSLIST shows only the agent’s own connections: connection counts are wrong', `GRANT PROCESS ON *.* TO ${grantee};`),
    privileges.has('SELECT')
      ? ok('SELECT on the database', `tables of ${database} readable (sizes, the advisor's EXPLAIN)`)
      : missing('SELECT on the database', `no SELECT on ${database}: table sizes are incomplete and the advisor cannot EXPLAIN`, `GRANT SELECT ON \`${database}\`.* TO ${grantee};`),
  ];
  if (numberOf(who!.performance_schema) !== 1) {
    results.push(missing('performance_schema', 'performance_schema is OFF: no statement statistics, rates or latency', 'performance_schema = ON  # [mysqld] in my.cnf, then restart the server'));
    return [...results, alterRequirement(privileges, database, grantee)];
  }
  results.push(ok('performance_schema', 'ON'));
  const readable = await session.query('SELECT 1 FROM performance_schema.events_statements_summary_by_digest LIMIT 1').then(
    () => true,
    () => false,
  );
  if (!readable) {
    results.push(missing('SELECT on performance_schema', 'the agent cannot read statement digests or connection attributes', `GRANT SELECT ON performance_schema.* TO ${grantee};`));
  } else {
    results.push(ok('SELECT on performance_schema', 'statement digests readable'));
    results.push(...consumerRequirements(await session.query(`SELECT NAME AS name, ENABLED AS enabled FROM performance_schema.setup_consumers WHERE NAME IN (${consumers.map(() => '?').join(', ')})`, consumers)));
    results.push(await instrumentsRequirement(session));
    results.push(await threadsRequirement(session, grantee));
  }
  results.push(await histogramRequirement(session, session.flavor));
  results.push(await replicaStatusRequirement(session, grantee));
  return [...results, alterRequirement(privileges, database, grantee)];
}

/** The requirement for each digest consumer, from rows of performance_schema.setup_consumers (`name`, `enabled`). */
export function consumerRequirements(rows: readonly Row[]): Requirement[] {
  return consumers.map((consumer) => {
    const name = `consumer ${consumer}`;
    if (rows.some((row) => textOf(row.name) === consumer && textOf(row.enabled) === 'YES')) return ok(name, 'enabled');
    return missing(
      name,
      `the ${consumer} consumer is disabled: statement digests record nothing (no rates, latency or slow queries)`,
      `UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' WHERE NAME = '${consumer}';  and in my.cnf [mysqld]: performance_schema_consumer_${consumer} = ON`,
    );
  });
}

async function instrumentsRequirement(session: MysqlSession): Promise<Requirement> {
  const [row] = await session.query("SELECT COUNT(*) AS off FROM performance_schema.setup_instruments WHERE NAME LIKE 'statement/%' AND (ENABLED <> 'YES' OR TIMED <> 'YES')");
  const off = numberOf(row?.off);
  if (off === 0) return ok('statement instruments', 'every statement instrument is enabled and timed');
  return missing(
    'statement instruments',
    `${off} statement instruments are disabled or untimed: those statements are not counted or have no latency`,
    "UPDATE performance_schema.setup_instruments SET ENABLED = 'YES', TIMED = 'YES' WHERE NAME LIKE 'statement/%';  and in my.cnf [mysqld]: performance_schema_instrument = 'statement/%=ON'",
  );
}

async function threadsRequirement(session: MysqlSession, grantee: string): Promise<Requirement> {
  try {
    await session.query("UPDATE performance_schema.threads SET INSTRUMENTED = 'NO' WHERE PROCESSLIST_ID = CONNECTION_ID()");
    return ok('UPDATE on performance_schema.threads', "the agent's sessions are not instrumented");
  } catch {
    return warning(
      'UPDATE on performance_schema.threads',
      "optional: without it the agent's own statements are counted in the digests",
      `GRANT UPDATE ON performance_schema.threads TO ${grantee};`,
    );
  }
}

async function histogramRequirement(session: MysqlSession, flavor: MysqlSession['flavor']): Promise<Requirement> {
  if (flavor === 'mysql') {
    const [row] = await session.query("SELECT COUNT(*) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'performance_schema' AND TABLE_NAME = 'events_statements_histogram_global'");
    return numberOf(row?.n) > 0
      ? ok('latency histogram', 'events_statements_histogram_global')
      : warning('latency histogram', 'optional: MySQL before 8.0.19 has no statement histogram; percentiles are estimated', 'upgrade to MySQL 8.0.19 or later');
  }
  const [row] = await session.query(
    "SELECT (SELECT PLUGIN_STATUS FROM information_schema.PLUGINS WHERE PLUGIN_NAME = 'QUERY_RESPONSE_TIME') AS status, @@GLOBAL.query_response_time_stats AS stats",
  ).catch(() => [{ status: null, stats: 0 }]);
  if (textOf(row?.status) !== 'ACTIVE') {
    return warning('latency histogram', 'optional: the QUERY_RESPONSE_TIME plugin is not installed; percentiles are estimated', "INSTALL SONAME 'query_response_time';  and in my.cnf [mysqld]: query_response_time_stats = ON");
  }
  if (numberOf(row?.stats) !== 1) {
    return warning('latency histogram', 'optional: query_response_time_stats is OFF; percentiles are estimated', 'SET GLOBAL query_response_time_stats = ON;  and in my.cnf [mysqld]: query_response_time_stats = ON');
  }
  return ok('latency histogram', 'QUERY_RESPONSE_TIME');
}

async function replicaStatusRequirement(session: MysqlSession, grantee: string): Promise<Requirement> {
  const readable = await readReplicaStatus((sql) => session.query(sql), session.flavor).then(
    () => true,
    () => false,
  );
  if (readable) return ok('replica status', 'readable (a replica reports its lag)');
  const privilege = session.flavor === 'mariadb' ? 'REPLICA MONITOR' : 'REPLICATION CLIENT';
  return warning('replica status', `optional: without ${privilege} a replica's status and lag (mysql_slave_status_*) are not collected`, `GRANT ${privilege} ON *.* TO ${grantee};`);
}

function alterRequirement(privileges: ReadonlySet<string>, database: string, grantee: string): Requirement {
  return privileges.has('ALTER')
    ? ok('apply index suggestions', `ALTER on ${database}`)
    : warning('apply index suggestions', 'optional, only to apply suggestions (ALTER TABLE ... ADD/DROP INDEX)', `GRANT ALTER ON \`${database}\`.* TO ${grantee};`);
}

/** Global privileges and those on the monitored database (a grant on a pattern such as `app\_%` included). */
async function privilegesOf(session: MysqlSession, grantee: string, database: string): Promise<Set<string>> {
  const rows = await session.query(
    `SELECT PRIVILEGE_TYPE AS privilege FROM information_schema.USER_PRIVILEGES WHERE GRANTEE = ?
     UNION SELECT PRIVILEGE_TYPE FROM information_schema.SCHEMA_PRIVILEGES WHERE GRANTEE = ? AND ? LIKE TABLE_SCHEMA`,
    [grantee, grantee, database],
  );
  return new Set(rows.map((row) => textOf(row.privilege)));
}
