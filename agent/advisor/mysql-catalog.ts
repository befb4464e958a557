import { nullableNumberOf, textOf } from '../sources/row.js';
import type { SqlSession } from '../sources/sql-session.js';
import { quoteMysql } from './identifiers.js';
import type { MysqlLexerModes } from './statement-guard.js';

/** The sql_mode flags that decide where the session's lexer ends quoted text; the guard lexes with them. */
export async function lexerModes(session: SqlSession): Promise<MysqlLexerModes> {
  const [row] = await session.query('SELECT @@SESSION.sql_mode AS mode');
  const flags = new Set(textOf(row?.mode).toUpperCase().split(','));
  return { ansiQuotes: flags.has('ANSI_QUOTES'), noBackslashEscapes: flags.has('NO_BACKSLASH_ESCAPES') };
}

export interface MysqlIndex {
  table: string;
  name: string;
  unique: boolean;
  type: string;
  /** Columns in order; a prefix length makes a column unusable as a whole-column key. */
  columns: Array<{ name: string; subPart: number | null }>;
}

/** The indexes of one table (or of every table of the schema when table is null). */
export async function mysqlIndexes(session: SqlSession, schema: string, table: string | null): Promise<MysqlIndex[]> {
  const rows = await session.query(
    `SELECT TABLE_NAME AS table_name, INDEX_NAME AS index_name, NON_UNIQUE AS non_unique, INDEX_TYPE AS index_type,
            SEQ_IN_INDEX AS seq, COLUMN_NAME AS column_name, SUB_PART AS sub_part
       FROM information_schema.STATISTICS
      WHERE TABLE_SCHEMA = ? AND (? IS NULL OR TABLE_NAME = ?)
      ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX`,
    [schema, table, table],
  );
  const byName = new Map<string, MysqlIndex>();
  for (const row of rows) {
    const key = `${textOf(row.table_name)}\0${textOf(row.index_name)}`;
    const index = byName.get(key) ?? {
      table: textOf(row.table_name),
      name: textOf(row.index_name),
      unique: Number(row.non_unique) === 0,
      type: textOf(row.index_type),
      columns: [],
    };
    index.columns.push({ name: textOf(row.column_name), subPart: nullableNumberOf(row.sub_part) });
    byName.set(key, index);
  }
  return [...byName.values()];
}

/** The existing B-tree index whose leading whole columns are these, if any. */
export function mysqlCoveringIndex(indexes: readonly MysqlIndex[], columns: readonly string[]): MysqlIndex | undefined {
  return indexes.find(
    (index) =>
      index.type === 'BTREE' &&
      columns.length <= index.columns.length &&
      columns.every((column, i) => index.columns[i]?.name === column && index.columns[i]?.subPart === null),
  );
}

/** Types a whole-column B-tree key cannot hold (or should not). */
const unindexable = new Set(['tinytext', 'text', 'mediumtext', 'longtext', 'tinyblob', 'blob', 'mediumblob', 'longblob', 'json', 'geometry', 'point', 'linestring', 'polygon', 'multipoint', 'multilinestring', 'multipolygon', 'geometrycollection']);

/** The columns of a table a plain index can hold; empty when the table does not exist. */
export async function indexableColumns(session: SqlSession, schema: string, table: string): Promise<Set<string>> {
  const rows = await session.query(
    'SELECT COLUMN_NAME AS name, DATA_TYPE AS type FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?',
    [schema, table],
  );
  return new Set(rows.filter((row) => !unindexable.has(textOf(row.type).toLowerCase())).map((row) => textOf(row.name)));
}

/** Sample statistics of a column combination: rows read, distinct values, values seen once. */
export async function sampleDistinct(session: SqlSession, schema: string, table: string, columns: readonly string[], sampleRows: number) {
  const list = columns.map(quoteMysql).join(', ');
  const [row] = await session.query(
    `SELECT COUNT(*) AS d, COALESCE(SUM(c = 1), 0) AS f1, COALESCE(SUM(c), 0) AS n
       FROM (SELECT COUNT(*) AS c FROM (SELECT ${list} FROM ${quoteMysql(schema)}.${quoteMysql(table)} LIMIT ${Math.round(sampleRows)}) s
              GROUP BY ${list}) g`,
  );
  return { distinct: Number(row?.d ?? 0), singletons: Number(row?.f1 ?? 0), rows: Number(row?.n ?? 0) };
}

/** The engine's row estimate of a table (information_schema.TABLES), at least 1. */
export async function tableRowCount(session: SqlSession, table: { schema: string; table: string }): Promise<number> {
  const [row] = await session.query('SELECT TABLE_ROWS AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?', [table.schema, table.table]);
  return Math.max(1, Number(row?.n ?? 1));
}

export function alterAddIndex(schema: string, table: string, name: string, columns: readonly string[]): string {
  return `ALTER TABLE ${quoteMysql(schema)}.${quoteMysql(table)} ADD INDEX ${quoteMysql(name)} (${columns.map(quoteMysql).join(', ')}), ALGORITHM=INPLACE, LOCK=NONE`;
}

export function alterDropIndex(schema: string, table: string, name: string): string {
  return `ALTER TABLE ${quoteMysql(schema)}.${quoteMysql(table)} DROP INDEX ${quoteMysql(name)}, ALGORITHM=INPLACE, LOCK=NONE`;
}
