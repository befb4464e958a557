import { textOf } from '../sources/row.js';
import type { MysqlSession } from '../sources/mysql-session.js';
import type { Suggestion } from '../../common/agent-protocol/job-results.js';
import type { AdvisorOptions } from './advisor-options.js';
import { alterDropIndex, mysqlIndexes, type MysqlIndex } from './mysql-catalog.js';

/**
 * Duplicate indexes (a B-tree whose columns lead another B-tree of the same table) and, once the
 * server has run long enough for the counters to mean something, indexes performance_schema
 * never saw used. PRIMARY and unique indexes are not proposed (a unique one only when an
 * identical unique one exists).
 */
export async function mysqlIndexHygiene(session: MysqlSession, options: AdvisorOptions): Promise<Suggestion[]> {
  const { schema } = session;
  const indexes = (await mysqlIndexes(session, schema, null)).filter((index) => index.type === 'BTREE');
  const suggestions: Suggestion[] = [];
  const proposed = new Set<MysqlIndex>();
  for (const index of indexes) {
    const coveredBy = redundantWith(index, indexes);
    if (coveredBy === undefined) continue;
    proposed.add(index);
    suggestions.push(
      dropSuggestion(schema, index, 'medium', `Drop index ${index.table}.${index.name}: it duplicates ${coveredBy.name} (${columnsOf(coveredBy).join(', ')})`, {
        reason: 'duplicate',
        covered_by: { index: coveredBy.name, columns: columnsOf(coveredBy) },
      }),
    );
  }
  const [uptime] = await session.query("SHOW GLOBAL STATUS LIKE 'Uptime'");
  const uptimeMs = Number(uptime?.Value ?? 0) * 1000;
  if (uptimeMs < options.unusedIndexMinStatsAgeMs) return suggestions;
  const unused = await session
    .query(
      `SELECT OBJECT_NAME AS table_name, INDEX_NAME AS index_name FROM performance_schema.table_io_waits_summary_by_index_usage
        WHERE OBJECT_SCHEMA = ? AND INDEX_NAME IS NOT NULL AND INDEX_NAME <> 'PRIMARY' AND COUNT_STAR = 0`,
      [schema],
    )
    .catch(() => []);
  for (const row of unused) {
    const index = indexes.find((candidate) => candidate.table === textOf(row.table_name) && candidate.name === textOf(row.index_name));
    if (index === undefined || index.unique || proposed.has(index)) continue;
    suggestions.push(
      dropSuggestion(schema, index, 'low', `Drop index ${index.table}.${index.name}: performance_schema saw no use of it in ${Math.round(uptimeMs / 86_400_000)} days of uptime`, {
        reason: 'unused',
        uptime_seconds: uptimeMs / 1000,
      }),
    );
  }
  return suggestions;
}

function columnsOf(index: MysqlIndex): string[] {
  return index.columns.map((column) => (column.subPart === null ? column.name : `${column.name}(${column.subPart})`));
}

function redundantWith(index: MysqlIndex, all: readonly MysqlIndex[]): MysqlIndex | undefined {
  if (index.name === 'PRIMARY') return undefined;
  return all.find((other) => {
    if (other === index || other.table !== index.table || index.columns.length > other.columns.length) return false;
    const prefix = index.columns.every((column, i) => other.columns[i]?.name === column.name && other.columns[i]?.subPart === column.subPart);
    if (!prefix) return false;
    const identical = index.columns.length === other.columns.length;
    if (index.unique) return identical && other.unique && (other.name === 'PRIMARY' || other.name < index.name);
    if (identical && !other.unique) return other.name < index.name;
    return true;
  });
}

function dropSuggestion(schema: string, index: MysqlIndex, confidence: Suggestion['confidence'], summary: string, evidence: Record<string, unknown>): Suggestion {
  return {
    kind: 'drop_index',
    query_id: null,
    summary,
    statement: alterDropIndex(schema, index.table, index.name),
    target: { schema, table: index.table, index_name: index.name, columns: index.columns.map((column) => column.name) },
    estimated_improvement_pct: null,
    cost_before: null,
    cost_after: null,
    confidence,
    evidence: { method: 'catalog', columns: columnsOf(index), ...evidence },
  };
}
