import { nullableNumberOf, textOf, type Row } from '../sources/row.js';
import type { SqlSession } from '../sources/sql-session.js';
import { quotePg } from './identifiers.js';

export interface ExistingIndex {
  schema: string;
  table: string;
  name: string;
  method: string;
  valid: boolean;
  unique: boolean;
  primary: boolean;
  partial: boolean;
  predicate: string | null;
  expressions: boolean;
  backsConstraint: boolean;
  /** Key columns in order (INCLUDE columns left out). */
  columns: string[];
  /** Operator classes of the key columns, as oids. */
  opclasses: string[];
  idxScan: number;
  sizeBytes: number;
}

const indexQuery = `
  SELECT n.nspname AS schema, t.relname AS table_name, c.relname AS name, am.amname AS method,
         i.indisvalid AS valid, i.indisunique AS is_unique, i.indisprimary AS is_primary,
         pg_get_expr(i.indpred, i.indrelid) AS predicate, i.indexprs IS NOT NULL AS expressions,
         EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid) AS backs_constraint,
         array(SELECT a.attname::text
                 FROM unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
                 JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
                WHERE k.ord <= i.indnkeyatts
                ORDER BY k.ord) AS columns,
         (string_to_array(i.indclass::text, ' '))[1:i.indnkeyatts] AS opclasses,
         coalesce(s.idx_scan, 0) AS idx_scan, pg_relation_size(i.indexrelid) AS size_bytes
    FROM pg_index i
    JOIN pg_class c ON c.oid = i.indexrelid
    JOIN pg_class t ON t.oid = i.indrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    JOIN pg_am am ON am.oid = c.relam
    LEFT JOIN pg_stat_user_indexes s ON s.indexrelid = i.indexrelid`;

function toIndex(row: Row): ExistingIndex {
  return {
    schema: textOf(row.schema),
    table: textOf(row.table_name),
    name: textOf(row.name),
    method: textOf(row.method),
    valid: row.valid === true,
    unique: row.is_unique === true,
    primary: row.is_primary === true,
    partial: row.predicate !== null,
    predicate: row.predicate === null ? null : textOf(row.predicate),
    expressions: row.expressions === true,
    backsConstraint: row.backs_constraint === true,
    columns: Array.isArray(row.columns) ? row.columns.map(String) : [],
    opclasses: Array.isArray(row.opclasses) ? row.opclasses.map(String) : [],
    idxScan: nullableNumberOf(row.idx_scan) ?? 0,
    sizeBytes: nullableNumberOf(row.size_bytes) ?? 0,
  };
}

/** The indexes of one table. */
export async function indexesOf(session: SqlSession, schema: string, table: string): Promise<ExistingIndex[]> {
  const rows = await session.query(`${indexQuery} WHERE i.indrelid = to_regclass($1)`, [`${quotePg(schema)}.${quotePg(table)}`]);
  return rows.map(toIndex);
}

/** The indexes of every user table of the database. */
export async function allIndexes(session: SqlSession): Promise<ExistingIndex[]> {
  const rows = await session.query(
    `${indexQuery} WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%' AND t.relkind IN ('r', 'm', 'p')
     ORDER BY n.nspname, t.relname, c.relname`,
  );
  return rows.map(toIndex);
}

/** The existing index (valid, whole-table, plain-column b-tree) that already serves an index on these leading columns. */
export function coveringIndex(indexes: readonly ExistingIndex[], columns: readonly string[]): ExistingIndex | undefined {
  return indexes.find(
    (index) =>
      index.method === 'btree' &&
      index.valid &&
      !index.partial &&
      !index.expressions &&
      columns.length <= index.columns.length &&
      columns.every((column, i) => index.columns[i] === column),
  );
}

export interface TableInfo {
  /** The planner's row estimate; null when the table was never analyzed. */
  rows: number | null;
  columns: Set<string>;
}

export async function tableInfo(session: SqlSession, schema: string, table: string): Promise<TableInfo> {
  const qualified = `${quotePg(schema)}.${quotePg(table)}`;
  const [row] = await session.query(
    `SELECT c.reltuples AS rows,
            array(SELECT attname::text FROM pg_attribute WHERE attrelid = c.oid AND attnum > 0 AND NOT attisdropped) AS columns
       FROM pg_class c WHERE c.oid = to_regclass($1)`,
    [qualified],
  );
  const rows = nullableNumberOf(row?.rows);
  return {
    rows: rows === null || rows < 0 ? null : rows,
    columns: new Set(Array.isArray(row?.columns) ? row.columns.map(String) : []),
  };
}

/** A name for a new index in the schema that no relation has yet. */
export async function freeRelationName(session: SqlSession, schema: string, base: string): Promise<string> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const name = attempt === 0 ? base : `${base.slice(0, 60 - String(attempt).length)}_${attempt}`;
    const taken = await session.query(
      'SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2',
      [schema, name],
    );
    if (taken.length === 0) return name;
  }
  throw new Error(`no free index name near ${base}`);
}
