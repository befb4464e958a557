import { numberOf, textOf } from '../sources/row.js';
import type { SqlSession } from '../sources/sql-session.js';
import { missing, ok, warning, type Requirement } from './requirement.js';

const quote = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/**
 * What the agent needs on one PostgreSQL database, as the collectors and the advisor use it:
 * pg_monitor (other sessions' states, other users' statements), pg_stat_statements preloaded and
 * created in the database, SELECT on the tables (EXPLAIN), and optionally hypopg (what-if plans)
 * and table ownership with CREATE on the schema (applying an index).
 */
export async function checkPostgres(session: SqlSession): Promise<Requirement[]> {
  const [who] = await session.query(
    `SELECT current_user AS username, current_database() AS database, current_setting('server_version_num')::int AS version,
            (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS superuser,
            pg_has_role(current_user, 'pg_monitor', 'USAGE') AS monitor`,
  );
  const user = quote(textOf(who!.username));
  const database = textOf(who!.database);
  const superuser = who!.superuser === true;
  const results = [monitorRequirement(user, superuser || who!.monitor === true)];
  results.push(...(await statementsRequirements(session, database, superuser || who!.monitor === true)));
  results.push(await hypopgRequirement(session, database, superuser, Math.floor(numberOf(who!.version) / 10000)));
  results.push(...(await tableRequirements(session, user)));
  return results;
}

function monitorRequirement(user: string, granted: boolean): Requirement {
  return granted
    ? ok('pg_monitor', 'the agent may read every session and statement')
    : missing(
        'pg_monitor',
        "without pg_monitor, other users' sessions show no state and their statements no text or id: connections and slow queries are wrong",
        `GRANT pg_monitor TO ${user};`,
      );
}

async function statementsRequirements(session: SqlSession, database: string, readsSettings: boolean): Promise<Requirement[]> {
  const [extension] = await session.query(
    `SELECT n.nspname AS schema
       FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_stat_statements'`,
  );
  const preload = await preloadRequirement(session, extension === undefined ? undefined : textOf(extension.schema), readsSettings);
  if (extension !== undefined) return [preload, ok('pg_stat_statements extension', `created in ${database} (schema ${textOf(extension.schema)})`)];
  const [available] = await session.query("SELECT count(*) AS n FROM pg_available_extensions WHERE name = 'pg_stat_statements'");
  const create = `CREATE EXTENSION pg_stat_statements;  -- as a superuser, in database ${database}`;
  return [
    preload,
    missing(
      'pg_stat_statements extension',
      `not created in ${database}: no query rate, latency or slow queries (latency stays null)`,
      numberOf(available?.n) > 0 ? create : `install the PostgreSQL contrib package on the database server, then ${create}`,
    ),
  ];
}

async function preloadRequirement(session: SqlSession, schema: string | undefined, readsSettings: boolean): Promise<Requirement> {
  const name = 'pg_stat_statements preloaded';
  if (readsSettings) {
    const [setting] = await session.query("SELECT current_setting('shared_preload_libraries') AS libraries");
    const libraries = textOf(setting?.libraries).split(',').map((library) => library.trim()).filter((library) => library !== '');
    if (libraries.includes('pg_stat_statements')) return ok(name, 'in shared_preload_libraries');
    return missing(
      name,
      'pg_stat_statements is not in shared_preload_libraries, so it records nothing',
      `shared_preload_libraries = '${[...libraries, 'pg_stat_statements'].join(',')}'  # postgresql.conf, then restart PostgreSQL`,
    );
  }
  if (schema === undefined) {
    return warning(name, 'cannot tell without pg_monitor (shared_preload_libraries is hidden)', "shared_preload_libraries = 'pg_stat_statements'  # postgresql.conf, if not there yet");
  }
  try {
    await session.query(`SELECT 1 FROM ${quote(schema)}.pg_stat_statements LIMIT 1`);
    return ok(name, 'the view answers');
  } catch (error) {
    return missing(name, (error as Error).message, "shared_preload_libraries = 'pg_stat_statements'  # postgresql.conf, then restart PostgreSQL");
  }
}

async function hypopgRequirement(session: SqlSession, database: string, superuser: boolean, major: number): Promise<Requirement> {
  const [row] = await session.query(
    `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'hypopg') AS installed,
            EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'hypopg') AS available`,
  );
  if (row!.installed === true) return ok('hypopg', `created in ${database}: index suggestions are checked with hypothetical indexes`);
  if (row!.available === true && superuser) return ok('hypopg', 'available: the advisor creates it inside each analysis and rolls it back');
  const detail = 'optional: without hypopg, index suggestions come from a heuristic instead of what-if plans';
  const create = `CREATE EXTENSION hypopg;  -- as a superuser, in database ${database}`;
  return warning('hypopg', detail, row!.available === true ? create : `install hypopg on the database server (Debian: postgresql-${major}-hypopg), then ${create}`);
}

/** SELECT on the tables (the advisor's EXPLAIN) and, to apply suggestions, ownership and CREATE on the schema. */
async function tableRequirements(session: SqlSession, user: string): Promise<Requirement[]> {
  const rows = await session.query(
    `SELECT n.nspname AS schema, c.relname AS table, pg_get_userbyid(c.relowner) AS owner,
            has_table_privilege(c.oid, 'SELECT') AS readable, pg_has_role(c.relowner, 'USAGE') AS owned,
            has_schema_privilege(n.oid, 'CREATE') AS creates
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p', 'm') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%'
      ORDER BY 1, 2`,
  );
  const unreadable = rows.filter((row) => row.readable !== true);
  const readSchemas = [...new Set(unreadable.map((row) => textOf(row.schema)))];
  const select =
    unreadable.length === 0
      ? ok('SELECT on tables', `${rows.length} tables readable for the advisor's EXPLAIN`)
      : warning(
          'SELECT on tables',
          `the advisor cannot EXPLAIN statements on ${list(unreadable)}`,
          readSchemas.map((schema) => `GRANT SELECT ON ALL TABLES IN SCHEMA ${quote(schema)} TO ${user};`).join(' '),
        );
  const notOwned = rows.filter((row) => row.owned !== true);
  const noCreate = [...new Set(rows.filter((row) => row.creates !== true).map((row) => textOf(row.schema)))];
  if (notOwned.length === 0 && noCreate.length === 0) return [select, ok('apply index suggestions', 'owns every table and may create in their schemas')];
  const fixes = [
    ...[...new Set(notOwned.map((row) => textOf(row.owner)))].map((owner) => `GRANT ${quote(owner)} TO ${user};`),
    ...noCreate.map((schema) => `GRANT CREATE ON SCHEMA ${quote(schema)} TO ${user};`),
  ];
  const reasons = [
    ...(notOwned.length === 0 ? [] : [`does not own ${list(notOwned)}`]),
    ...(noCreate.length === 0 ? [] : [`has no CREATE on schema ${noCreate.join(', ')}`]),
  ];
  return [select, warning('apply index suggestions', `optional, only to apply suggestions (CREATE/DROP INDEX CONCURRENTLY): ${reasons.join('; ')}`, fixes.join(' '))];
}

function list(rows: ReadonlyArray<{ schema?: unknown; table?: unknown }>): string {
  const names = rows.slice(0, 3).map((row) => `${textOf(row.schema)}.${textOf(row.table)}`);
  return rows.length > 3 ? `${names.join(', ')} and ${rows.length - 3} more` : names.join(', ');
}
