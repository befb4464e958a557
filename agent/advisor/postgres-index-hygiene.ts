import { numberOf } from '../sources/row.js';
import type { SqlSession } from '../sources/sql-session.js';
import { quotePg } from './identifiers.js';
import type { Suggestion } from '../../common/agent-protocol/job-results.js';
import type { AdvisorOptions } from './advisor-options.js';
import { allIndexes, type ExistingIndex } from './postgres-catalog.js';

/**
 * Indexes that cost writes and space for nothing: duplicates (a b-tree whose key columns lead
 * another b-tree of the same table with the same predicate and operator classes) and, once the
 * usage counters are old enough to mean something, indexes never scanned. Indexes behind a
 * primary key, unique or exclusion constraint are never proposed, nor unique indexes unless an
 * identical unique one exists.
 */
export async function postgresIndexHygiene(session: SqlSession, options: AdvisorOptions): Promise<Suggestion[]> {
  const indexes = await allIndexes(session);
  const [age] = await session.query(
    `SELECT extract(epoch FROM now() - coalesce((SELECT stats_reset FROM pg_stat_database WHERE datname = current_database()),
                                                pg_postmaster_start_time())) * 1000 AS ms,
            coalesce((SELECT stats_reset FROM pg_stat_database WHERE datname = current_database()), pg_postmaster_start_time()) AS since`,
  );
  const statsAgeMs = numberOf(age?.ms ?? 0);
  const statsSince = age?.since instanceof Date ? age.since.toISOString() : String(age?.since);
  const suggestions: Suggestion[] = [];
  const proposed = new Set<ExistingIndex>();
  for (const index of indexes) {
    const coveredBy = redundantWith(index, indexes);
    if (coveredBy === undefined) continue;
    proposed.add(index);
    suggestions.push(
      dropSuggestion(index, 'medium', `Drop index ${index.schema}.${index.name}: it duplicates ${coveredBy.name} (${coveredBy.columns.join(', ')}), which serves the same lookups`, {
        reason: 'duplicate',
        covered_by: { index: coveredBy.name, columns: coveredBy.columns },
        columns: index.columns,
        size_bytes: index.sizeBytes,
      }),
    );
  }
  if (statsAgeMs >= options.unusedIndexMinStatsAgeMs) {
    for (const index of indexes) {
      if (proposed.has(index) || index.idxScan > 0 || !droppable(index) || index.unique || !index.valid) continue;
      suggestions.push(
        dropSuggestion(index, 'low', `Drop index ${index.schema}.${index.name}: not used once since ${statsSince} (${index.sizeBytes} bytes)`, {
          reason: 'unused',
          idx_scan: index.idxScan,
          stats_since: statsSince,
          columns: index.columns,
          size_bytes: index.sizeBytes,
        }),
      );
    }
  }
  return suggestions;
}

function droppable(index: ExistingIndex): boolean {
  return !index.primary && !index.backsConstraint;
}

/** The index that makes this one redundant, if any. Of two identical ones, the later name goes. */
function redundantWith(index: ExistingIndex, all: readonly ExistingIndex[]): ExistingIndex | undefined {
  if (!droppable(index) || !plainBtree(index)) return undefined;
  return all.find((other) => {
    if (other === index || other.schema !== index.schema || other.table !== index.table || !plainBtree(other)) return false;
    if (other.predicate !== index.predicate || index.columns.length > other.columns.length) return false;
    const prefix = index.columns.every((column, i) => other.columns[i] === column && other.opclasses[i] === index.opclasses[i]);
    if (!prefix) return false;
    const identical = index.columns.length === other.columns.length;
    if (index.unique) return identical && other.unique;
    if (identical && !other.unique && droppable(other)) return other.name < index.name;
    return true;
  });
}

function plainBtree(index: ExistingIndex): boolean {
  return index.method === 'btree' && index.valid && !index.expressions;
}

function dropSuggestion(index: ExistingIndex, confidence: Suggestion['confidence'], summary: string, evidence: Record<string, unknown>): Suggestion {
  return {
    kind: 'drop_index',
    query_id: null,
    summary,
    statement: `DROP INDEX CONCURRENTLY ${quotePg(index.schema)}.${quotePg(index.name)}`,
    target: { schema: index.schema, table: index.table, index_name: index.name, columns: index.columns },
    estimated_improvement_pct: null,
    cost_before: null,
    cost_after: null,
    confidence,
    evidence: { method: 'catalog', ...evidence },
  };
}
