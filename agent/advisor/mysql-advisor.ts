import type { Row } from '../sources/row.js';
import type { MysqlSession } from '../sources/mysql-session.js';
import { estimateDistinct } from './distinct-estimate.js';
import { indexNameFor } from './identifiers.js';
import type { Suggestion } from '../../common/agent-protocol/job-results.js';
import type { AnalyzeStatement } from '../../common/agent-protocol/optimization-jobs.js';
import type { AdvisorOptions } from './advisor-options.js';
import { alterAddIndex, indexableColumns, lexerModes, mysqlCoveringIndex, mysqlIndexes, sampleDistinct, tableRowCount } from './mysql-catalog.js';
import { planMessages, planText, rowsExamined, tableAccesses } from './mysql-plan.js';
import { conditionColumns, executableDigest, tableAliases, type MysqlColumnUse } from './mysql-statement.js';
import type { StatementReport } from './postgres-advisor.js';
import { checkStatement } from './statement-guard.js';

interface Estimate {
  schema: string;
  table: string;
  alias: string;
  columns: string[];
  distinct: number;
  /** Rows examined by the whole statement with the index. */
  after: number;
  /** Estimated as the inner side of a nested loop (a join column), or as a filter of its own table. */
  model: 'filter' | 'join';
}

/**
 * Analyzes one digest on MySQL/MariaDB: EXPLAIN FORMAT=JSON of its text with safe literals, in
 * a transaction that is rolled back (read-only for a SELECT). A full scan of a large table whose
 * condition compares columns for equality (with a value or another table's column) gets an
 * index on them. Neither engine can EXPLAIN with a trial index (MariaDB has no invisible or
 * hypothetical indexes), so the gain is an estimate: rows examined before, from the plan, and
 * after, from the distinct values a sample of the table holds.
 */
export async function analyzeMysqlStatement(session: MysqlSession, statement: AnalyzeStatement, options: AdvisorOptions): Promise<StatementReport> {
  const refuse = (reason: string): StatementReport => ({ analysis: { query_id: statement.query_id, outcome: 'refused', detail: `Refused: ${reason}` } });
  const verdict = checkStatement(statement.query, 'mysql', await lexerModes(session));
  if (!verdict.ok) return refuse(verdict.reason);
  const sql = executableDigest(verdict.text, verdict.tokens);
  if (sql === undefined) return refuse('the server truncated the digest text (max_digest_length), so it cannot be planned');
  const noSuggestion = (detail: string): StatementReport => ({ analysis: { query_id: statement.query_id, outcome: 'no_suggestion', detail } });
  try {
    const explained = await explain(session, sql, verdict.kind === 'select');
    const accesses = tableAccesses(explained);
    const aliases = tableAliases(verdict.tokens);
    const uses: MysqlColumnUse[] = [
      ...accesses.flatMap((access) => (access.condition === null ? [] : conditionColumns(access.condition))),
      // An eq_ref/ref lookup of another table by this one's column makes that column a join column.
      ...accesses.flatMap((access) => access.refs.map((ref) => ref.split('.').slice(-2)).map(([alias, column]) => ({ alias: alias!, column: column!, role: 'join' as const }))),
    ];
    const tableOf = (alias: string) => {
      const ref = aliases.get(alias) ?? { schema: null, table: alias };
      return { schema: ref.schema ?? session.schema, table: ref.table };
    };
    const distinctCache = new Map<string, number>();
    const distinctOf = async (alias: string, columns: readonly string[], tableRows: number) => {
      const { schema, table } = tableOf(alias);
      const key = `${schema}.${table}:${columns.join(',')}`;
      if (!distinctCache.has(key)) distinctCache.set(key, estimateDistinct(await sampleDistinct(session, schema, table, columns, options.mysqlSampleRows), tableRows));
      return distinctCache.get(key)!;
    };
    const rowsCache = new Map<string, number>();
    const tableRows = async (alias: string) => {
      if (!rowsCache.has(alias)) rowsCache.set(alias, await tableRowCount(session, tableOf(alias)));
      return rowsCache.get(alias)!;
    };
    /** A table's rows after its own equality filters (each column's 1/distinct), when it is read by itself. */
    const filteredRows = async (alias: string) => {
      const rows = await tableRows(alias);
      let selectivity = 1;
      for (const use of uses.filter((candidate) => candidate.alias === alias && candidate.role === 'equality')) {
        selectivity /= await distinctOf(alias, [use.column], rows);
      }
      return Math.max(1, rows * selectivity);
    };
    const scanned = accesses.filter((access) => (access.accessType === 'ALL' || (access.accessType === 'index' && access.condition !== null)) && access.rows >= options.minTableRows);
    if (scanned.length === 0) {
      const keys = [...new Set(accesses.map((access) => access.key).filter((key) => key !== null))];
      const messages = planMessages(explained);
      if (keys.length > 0) return noSuggestion(`The plan already reads through ${keys.join(', ')} and has no full scan of a table of ${options.minTableRows}+ rows to replace`);
      if (messages.length > 0) return noSuggestion(`The plan reads no table through a full scan (EXPLAIN: ${messages.join('; ')}), typically a primary or unique key lookup`);
      return noSuggestion(`The plan has no full scan of a table of ${options.minTableRows}+ rows`);
    }
    const before = rowsExamined(accesses);
    const estimates: Estimate[] = [];
    const covered: string[] = [];
    for (const access of scanned) {
      const { schema, table } = tableOf(access.alias);
      const indexable = await indexableColumns(session, schema, table);
      const columns = [...new Set(uses.filter((use) => use.alias === access.alias && indexable.has(use.column)).map((use) => use.column))].slice(
        0,
        options.maxColumnsPerTable,
      );
      const indexes = await mysqlIndexes(session, schema, table);
      const candidates = [...columns.map((column) => [column]), ...columns.flatMap((a) => columns.filter((b) => b !== a).map((b) => [a, b]))];
      for (const candidate of candidates) {
        const existing = mysqlCoveringIndex(indexes, candidate);
        if (existing !== undefined) {
          covered.push(existing.name);
          continue;
        }
        const distinct = await distinctOf(access.alias, candidate, access.rows);
        const perLookup = Math.max(1, access.rows / distinct);
        const joins = candidate.some((column) => uses.some((use) => use.alias === access.alias && use.column === column && use.role === 'join'));
        if (!joins) {
          estimates.push({ schema, table, alias: access.alias, columns: candidate, distinct, model: 'filter', after: before - access.rows * access.loops + perLookup * access.loops });
          continue;
        }
        // Indexed on its join column, the table becomes the inner side of a nested loop: the other
        // tables are read once each, and their rows (after their own filters) drive one lookup apiece.
        let others = 0;
        let drivers = 1;
        for (const other of accesses.filter((candidateAccess) => candidateAccess.alias !== access.alias)) {
          others += await tableRows(other.alias);
          drivers *= await filteredRows(other.alias);
        }
        estimates.push({ schema, table, alias: access.alias, columns: candidate, distinct, model: 'join', after: others + drivers * perLookup });
      }
    }
    if (estimates.length === 0) {
      return noSuggestion(
        covered.length > 0
          ? `Every candidate index is covered by an existing one (${[...new Set(covered)].join(', ')})`
          : `The full scans (${scanned.map((access) => access.alias).join(', ')}) have no equality condition an index could serve`,
      );
    }
    const after = (estimate: Estimate) => estimate.after;
    const bestAfter = Math.min(...estimates.map(after));
    const best = estimates.filter((estimate) => after(estimate) <= bestAfter * 1.1 + 1).sort((a, b) => a.columns.length - b.columns.length || after(a) - after(b))[0]!;
    const rowsAfter = Math.round(after(best));
    const improvement = Math.round(((before - rowsAfter) / before) * 1000) / 10;
    if (improvement < options.minImprovementPct) {
      return noSuggestion(
        `The best index, ${best.table} (${best.columns.join(', ')}), would cut the rows examined by an estimated ${improvement} % only; the threshold is ${options.minImprovementPct} %`,
      );
    }
    const name = freeName(await mysqlIndexes(session, best.schema, best.table), indexNameFor(best.table, best.columns, 64));
    const flavor = session.flavor === 'mariadb' ? 'MariaDB' : 'MySQL';
    const suggestion: Suggestion = {
      kind: 'create_index',
      query_id: statement.query_id,
      summary:
        `Create an index on ${best.schema}.${best.table} (${best.columns.join(', ')}): the rows examined fall from about ${Math.round(before)} ` +
        `to about ${rowsAfter} (${improvement} % fewer). Estimate: ${flavor} cannot EXPLAIN with a trial index, so the rows after come from the columns' cardinality`,
      statement: alterAddIndex(best.schema, best.table, name, best.columns),
      target: { schema: best.schema, table: best.table, index_name: name, columns: best.columns },
      estimated_improvement_pct: improvement,
      cost_before: Math.round(before),
      cost_after: rowsAfter,
      confidence: 'medium',
      evidence: {
        method: 'cardinality_estimate',
        cost_unit: 'rows_examined',
        note: `${flavor} cannot EXPLAIN with a hypothetical or trial index: rows examined after are estimated as table rows / distinct values, the distinct values estimated from a sample of ${options.mysqlSampleRows} rows (Duj1 estimator)`,
        explained_text: sql,
        plan_before: planText(explained),
        candidates: estimates.map((estimate) => ({
          table: estimate.table,
          columns: estimate.columns,
          model: estimate.model,
          distinct_estimate: Math.round(estimate.distinct),
          rows_examined_after: Math.round(estimate.after),
        })),
        ...(covered.length > 0 && { covered_by_existing: [...new Set(covered)] }),
      },
    };
    return { analysis: { query_id: statement.query_id, outcome: 'suggestion', detail: `Index on ${best.table} (${best.columns.join(', ')})` }, suggestion };
  } catch (error) {
    return { analysis: { query_id: statement.query_id, outcome: 'failed', detail: `Analysis failed: ${(error as Error).message}` } };
  }
}

/**
 * EXPLAIN FORMAT=JSON with the monitored database as default schema, in a transaction that is
 * rolled back. SELECTs run read-only; MariaDB refuses EXPLAIN UPDATE/DELETE in a read-only
 * transaction, and EXPLAIN never executes them.
 */
export async function explain(session: MysqlSession, sql: string, readOnly: boolean): Promise<Row[]> {
  return session.queryInSchema(`EXPLAIN FORMAT=JSON ${sql}`, { readOnly });
}

function freeName(indexes: readonly { name: string }[], base: string): string {
  const taken = new Set(indexes.map((index) => index.name.toLowerCase()));
  for (let attempt = 0; ; attempt++) {
    const name = attempt === 0 ? base : `${base.slice(0, 60)}_${attempt}`;
    if (!taken.has(name.toLowerCase())) return name;
  }
}
