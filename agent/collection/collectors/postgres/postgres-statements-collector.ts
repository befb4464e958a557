import { seriesKey } from '../../../../common/exporter-catalog.js';
import type { Collector, StatementTotals } from '../../collector.js';
import { AGENT_MARKER } from '../../../sources/connection-settings.js';
import type { PostgresSource } from '../../../sources/postgres-source.js';
import { numberOf, textOf, type Row } from '../../../sources/row.js';

/** Where the extension is and which columns its version has: read once, again only after a read failed. */
interface Extension {
  schema: string;
  columns: Set<string>;
}

/** What one database's collector keeps between cycles. */
interface StatementsMemory {
  extension?: Extension;
  /** Statement text by entry key; null for the agent's own statements, which are left out. */
  texts: Map<string, string | null>;
}

/** Per source, that is per monitored database: the collector object itself may be shared. */
const memories = new WeakMap<PostgresSource, StatementsMemory>();

/**
 * Lifetime statistics of the monitored database's statements from pg_stat_statements; the
 * runner turns them into per-interval deltas. Only top-level statements count (with
 * pg_stat_statements.track = all, statements inside functions are listed too), and the agent's
 * own are left out by their marker comment. Never resets the view: other tools read it too. The
 * `topStatements` that took the most time are also exported as pg_stat_statements_*_total series.
 *
 * Every cycle reads `pg_stat_statements(false)`: without the texts, which the server otherwise
 * loads from its query text file, every database's statements, for each call. Texts are read
 * only for entries not seen in the previous cycle, and kept while the entry is listed.
 */
export const createPostgresStatementsCollector = (topStatements: number): Collector<PostgresSource> => ({
  name: 'pg_stat_statements',
  explainsMissingLatency: true,
  readsRateCounters: true,
  async collect(source, { signal }) {
    let memory = memories.get(source);
    if (memory === undefined) memories.set(source, (memory = { texts: new Map() }));
    const rows = await readStatements(source, memory, signal);
    return {
      counters: topStatementCounters(rows, topStatements),
      readings: { statements: rows.map(toTotals) },
      ...(rows.length === 0 && { latencyNote: 'pg_stat_statements has no statements for this database yet' }),
    };
  },
});

/** The monitored database's entries with their texts, the agent's own left out. */
async function readStatements(source: PostgresSource, memory: StatementsMemory, signal: AbortSignal): Promise<Row[]> {
  const remembered = memory.extension;
  let extension = remembered ?? (await findExtension(source, signal));
  let rows: Row[];
  try {
    rows = await source.query(countersQuery(extension), [], signal);
  } catch (error) {
    // Dropped, moved to another schema or updated since it was found: found again, read once more.
    memory.extension = undefined;
    if (remembered === undefined) throw error;
    extension = await findExtension(source, signal);
    rows = await source.query(countersQuery(extension), [], signal);
  }
  memory.extension = extension;
  const unknown = [...new Set(rows.filter((row) => !memory.texts.has(keyOf(row))).map((row) => textOf(row.queryid)))];
  const fresh = unknown.length === 0 ? [] : await source.query(textsQuery(extension), [unknown], signal);
  const freshTexts = new Map(fresh.map((row) => [keyOf(row), ownText(row.query)]));
  const texts = new Map<string, string | null>();
  const listed: Row[] = [];
  for (const row of rows) {
    const key = keyOf(row);
    const text = memory.texts.has(key) ? memory.texts.get(key) : freshTexts.get(key);
    // Gone between the two reads: asked for again should it come back.
    if (text === undefined) continue;
    texts.set(key, text);
    if (text !== null) listed.push({ ...row, query: text });
  }
  memory.texts = texts;
  return listed;
}

/** The statement's text, or null when it is the agent's own or the server lost it. */
function ownText(query: unknown): string | null {
  if (query === null || query === undefined) return null;
  const text = textOf(query);
  return text.includes(AGENT_MARKER) ? null : text;
}

async function findExtension(source: PostgresSource, signal: AbortSignal): Promise<Extension> {
  const [extension] = await source.query(
    `SELECT n.nspname AS schema,
            array(SELECT attname::text
                    FROM pg_attribute
                   WHERE attrelid = to_regclass(format('%I.pg_stat_statements', n.nspname))
                     AND attnum > 0 AND NOT attisdropped) AS columns
       FROM pg_extension e
       JOIN pg_namespace n ON n.oid = e.extnamespace
      WHERE e.extname = 'pg_stat_statements'`,
    [],
    signal,
  );
  if (extension === undefined) {
    throw new Error(
      'pg_stat_statements is not installed in this database (CREATE EXTENSION pg_stat_statements, ' +
        'with pg_stat_statements in shared_preload_libraries): no query rate, latency or statements',
    );
  }
  return { schema: textOf(extension.schema), columns: new Set(Array.isArray(extension.columns) ? extension.columns.map(String) : []) };
}

/** The entries of the monitored database, so the statement's identity is userid and queryid. */
function entriesOf({ schema, columns }: Extension, showText: boolean): string {
  const topLevelOnly = columns.has('toplevel') ? 'AND toplevel' : '';
  return `FROM ${quoteIdentifier(schema)}.pg_stat_statements(${showText})
           WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
             AND queryid IS NOT NULL
             ${topLevelOnly}`;
}

/** Column names changed in pg_stat_statements 1.8 (PostgreSQL 13): total_time became total_exec_time. */
function countersQuery(extension: Extension): string {
  const time = extension.columns.has('total_exec_time') ? 'exec_time' : 'time';
  return `SELECT userid::text AS userid, pg_get_userbyid(userid) AS username, current_database() AS datname,
                 queryid::text AS queryid, calls, rows,
                 total_${time} AS total_ms, mean_${time} AS mean_ms,
                 stddev_${time} AS stddev_ms, max_${time} AS max_ms
            ${entriesOf(extension, false)}`;
}

function textsQuery(extension: Extension): string {
  return `SELECT userid::text AS userid, queryid::text AS queryid, query
            ${entriesOf(extension, true)}
             AND queryid = ANY($1::bigint[])`;
}

function keyOf(row: Row): string {
  return `${textOf(row.userid)}:${textOf(row.queryid)}`;
}

/** postgres_exporter's pg_stat_statements series for the `limit` statements with the most total time. */
export function topStatementCounters(rows: readonly Row[], limit: number): Record<string, number> {
  const counters: Record<string, number> = {};
  const top = [...rows].sort((a, b) => numberOf(b.total_ms) - numberOf(a.total_ms)).slice(0, limit);
  for (const row of top) {
    const labels = { user: textOf(row.username), datname: textOf(row.datname), queryid: textOf(row.queryid) };
    counters[seriesKey('pg_stat_statements_calls_total', labels)] = numberOf(row.calls);
    counters[seriesKey('pg_stat_statements_seconds_total', labels)] = numberOf(row.total_ms) / 1000;
    counters[seriesKey('pg_stat_statements_rows_total', labels)] = numberOf(row.rows);
  }
  return counters;
}

function toTotals(row: Row): StatementTotals {
  const calls = numberOf(row.calls);
  const meanMs = numberOf(row.mean_ms);
  const stddevMs = numberOf(row.stddev_ms);
  return {
    key: keyOf(row),
    queryId: textOf(row.queryid),
    query: textOf(row.query),
    calls,
    totalMs: numberOf(row.total_ms),
    // The view keeps a population deviation: sum of squares = n * (deviation² + mean²).
    sumSquaresMs2: calls * (stddevMs ** 2 + meanMs ** 2),
    maxMs: numberOf(row.max_ms),
    rows: numberOf(row.rows),
  };
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
