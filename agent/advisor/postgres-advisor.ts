import { numberOf, textOf } from '../sources/row.js';
import type { SqlSession } from '../sources/sql-session.js';
import { indexNameFor, quotePg } from './identifiers.js';
import type { StatementAnalysis, Suggestion } from '../../common/agent-protocol/job-results.js';
import type { AnalyzeStatement } from '../../common/agent-protocol/optimization-jobs.js';
import type { AdvisorOptions } from './advisor-options.js';
import { coveringIndex, freeRelationName, indexesOf, tableInfo } from './postgres-catalog.js';
import { guardPlanning } from './postgres-planning-guard.js';
import { columnUses, planExcerpt, planRoot, scans, totalCost, usesIndex, walk, type ColumnUse, type PlanNode, type Scan } from './postgres-plan.js';
import { checkStatement } from './statement-guard.js';

type HypopgState = { state: 'installed' | 'created_for_analysis'; schema: string } | { state: 'unavailable'; reason: string };

interface Candidate {
  schema: string;
  table: string;
  columns: string[];
}

interface Tried extends Candidate {
  cost: number | null;
  used: boolean;
  error?: string;
}

export interface StatementReport {
  analysis: StatementAnalysis;
  suggestion?: Suggestion;
}

const PREPARED = 'dbmon_advisor';
const MAX_CANDIDATES = 30;

/**
 * Analyzes one statement on PostgreSQL: its generic plan, then (with hypopg) the plan under each
 * hypothetical single- and two-column index on the columns the plan filters and joins on, or
 * (without hypopg) a heuristic on the sequential scans. Everything runs in one read-only
 * transaction that is rolled back, with statement and lock timeouts.
 */
export async function analyzePostgresStatement(
  session: SqlSession,
  statement: AnalyzeStatement,
  options: AdvisorOptions,
): Promise<StatementReport> {
  const refused = (reason: string): StatementReport => ({ analysis: { query_id: statement.query_id, outcome: 'refused', detail: `Refused: ${reason}` } });
  const verdict = checkStatement(statement.query, 'postgresql');
  if (!verdict.ok) return refused(verdict.reason);
  try {
    await session.query('BEGIN');
    await session.query(`SET LOCAL statement_timeout = ${Math.round(options.analysisTimeoutMs)}`);
    await session.query(`SET LOCAL lock_timeout = ${Math.round(options.lockTimeoutMs)}`);
    const hypopg = await prepareHypopg(session, options);
    // Nothing below may write: the analyzed text runs only under EXPLAIN, and the transaction is read-only besides.
    await session.query('SET TRANSACTION READ ONLY');
    const refusal = await guardPlanning(session, verdict.tokens);
    if (refusal !== undefined) return refused(refusal);
    await session.query('SET LOCAL plan_cache_mode = force_generic_plan');
    const explain = (): Promise<PlanNode> => genericPlan(session, verdict.text);
    const before = await explain();
    const report =
      hypopg.state === 'unavailable'
        ? await heuristic(session, statement, before, hypopg.reason, options)
        : await whatIf(session, statement, before, hypopg, explain, options);
    report.suggestion &&= { ...report.suggestion, evidence: { generic_plan: GENERIC_PLAN_METHOD, ...report.suggestion.evidence } };
    return report;
  } catch (error) {
    return { analysis: { query_id: statement.query_id, outcome: 'failed', detail: `Analysis failed: ${(error as Error).message}` } };
  } finally {
    await session.query('ROLLBACK').catch(() => undefined);
    await session.query('DEALLOCATE ALL').catch(() => undefined);
  }
}

const GENERIC_PLAN_METHOD = 'PREPARE with plan_cache_mode = force_generic_plan, EXPLAIN EXECUTE';

/**
 * The plan the statement gets whatever its parameters (the caller sets plan_cache_mode =
 * force_generic_plan). PREPARE on every version: over the extended protocol, PostgreSQL 16's
 * EXPLAIN (GENERIC_PLAN) would want its $n bound, and PREPARE takes one statement only.
 */
export async function genericPlan(session: SqlSession, text: string): Promise<PlanNode> {
  // Prepared afresh each time: a cached generic plan would not see a hypothetical index created since.
  await session.query(`PREPARE ${PREPARED} AS ${text}`);
  try {
    const [row] = await session.query(
      `SELECT coalesce(cardinality(parameter_types), 0) AS parameters FROM pg_prepared_statements WHERE name = '${PREPARED}'`,
    );
    const parameters = numberOf(row?.parameters ?? 0);
    const args = parameters === 0 ? '' : `(${Array.from({ length: parameters }, () => 'NULL').join(', ')})`;
    return planRoot(await session.query(`EXPLAIN (FORMAT JSON, VERBOSE) EXECUTE ${PREPARED}${args}`));
  } finally {
    await session.query(`DEALLOCATE ${PREPARED}`);
  }
}

/** Finds hypopg, or (auto) creates it inside the analysis transaction, which is rolled back: nothing stays behind. */
async function prepareHypopg(session: SqlSession, options: AdvisorOptions): Promise<HypopgState> {
  if (options.hypopg === 'never') return { state: 'unavailable', reason: 'hypopg disabled in the agent configuration' };
  const installed = async () =>
    (await session.query("SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'hypopg'"))[0];
  const found = await installed();
  if (found !== undefined) return { state: 'installed', schema: textOf(found.schema) };
  if (options.hypopg === 'installed') return { state: 'unavailable', reason: 'hypopg is not installed in this database' };
  await session.query('SAVEPOINT dbmon_hypopg');
  try {
    await session.query('CREATE EXTENSION hypopg');
    await session.query('RELEASE SAVEPOINT dbmon_hypopg');
    return { state: 'created_for_analysis', schema: textOf((await installed())?.schema) };
  } catch (error) {
    await session.query('ROLLBACK TO SAVEPOINT dbmon_hypopg');
    return { state: 'unavailable', reason: `hypopg could not be used: ${(error as Error).message}` };
  }
}

/** Tables read by a sequential scan, with the columns an index on them could serve. */
async function candidateTables(session: SqlSession, root: PlanNode, options: AdvisorOptions) {
  const allScans = scans(root);
  const uses = columnUses(root);
  const aliasOf = new Map<string, { schema: string; relation: string }>();
  for (const scan of allScans) aliasOf.set(scan.alias, { schema: scan.schema, relation: scan.relation });
  const tables = new Map<string, { schema: string; table: string; scans: Scan[]; uses: ColumnUse[] }>();
  for (const scan of allScans.filter((candidate) => candidate.nodeType === 'Seq Scan')) {
    const key = `${scan.schema}.${scan.relation}`;
    const entry = tables.get(key) ?? { schema: scan.schema, table: scan.relation, scans: [], uses: [] };
    entry.scans.push(scan);
    tables.set(key, entry);
  }
  const result = [];
  for (const entry of tables.values()) {
    const info = await tableInfo(session, entry.schema, entry.table);
    const mine = uses.filter((use) => {
      const target = aliasOf.get(use.alias);
      return target?.schema === entry.schema && target.relation === entry.table && info.columns.has(use.column);
    });
    const rank = (use: ColumnUse) => (use.role === 'equality' && use.field === 'Filter' ? 0 : use.role === 'equality' ? 1 : use.role === 'join' ? 2 : 3);
    const ordered = [...mine].sort((a, b) => rank(a) - rank(b));
    const columns = [...new Set(ordered.map((use) => use.column))].slice(0, options.maxColumnsPerTable);
    const leading = [...new Set(ordered.filter((use) => use.role !== 'range').map((use) => use.column))].filter((column) => columns.includes(column));
    result.push({ ...entry, info, columns, leading, indexes: await indexesOf(session, entry.schema, entry.table) });
  }
  return result;
}

/** Single columns, then pairs led by an equality or join column (a range column can only come second). */
function candidatesFor(schema: string, table: string, columns: readonly string[], leading: readonly string[]): Candidate[] {
  const singles = columns.map((column) => ({ schema, table, columns: [column] }));
  const pairs = leading.flatMap((first) => columns.filter((second) => second !== first).map((second) => ({ schema, table, columns: [first, second] })));
  return [...singles, ...pairs];
}

async function whatIf(
  session: SqlSession,
  statement: AnalyzeStatement,
  before: PlanNode,
  hypopg: Extract<HypopgState, { schema: string }>,
  explain: () => Promise<PlanNode>,
  options: AdvisorOptions,
): Promise<StatementReport> {
  const costBefore = totalCost(before);
  const tables = await candidateTables(session, before, options);
  const noSuggestion = (detail: string): StatementReport => ({ analysis: { query_id: statement.query_id, outcome: 'no_suggestion', detail } });
  if (tables.length === 0) return noSuggestion(capitalized(alreadyIndexed(before)));
  const covered: Array<{ columns: string[]; table: string; index: string }> = [];
  const candidates: Candidate[] = [];
  for (const table of tables) {
    for (const candidate of candidatesFor(table.schema, table.table, table.columns, table.leading)) {
      const existing = coveringIndex(table.indexes, candidate.columns);
      if (existing !== undefined) covered.push({ table: `${table.schema}.${table.table}`, columns: candidate.columns, index: existing.name });
      else candidates.push(candidate);
    }
  }
  if (candidates.length === 0) {
    if (covered.length > 0) {
      return noSuggestion(
        `Every candidate index is covered by an existing one (${[...new Set(covered.map((entry) => entry.index))].join(', ')}); ` +
          'the planner prefers the sequential scan anyway',
      );
    }
    return noSuggestion(
      `The sequential scans (${tables.map((table) => `${table.schema}.${table.table}`).join(', ')}) have no filter or join column an index could serve`,
    );
  }
  const tried: Tried[] = [];
  const plans = new Map<Tried, PlanNode>();
  for (const candidate of candidates.slice(0, MAX_CANDIDATES)) {
    const definition = `CREATE INDEX ON ${quotePg(candidate.schema)}.${quotePg(candidate.table)} USING btree (${candidate.columns.map(quotePg).join(', ')})`;
    await session.query('SAVEPOINT dbmon_candidate');
    try {
      const [created] = await session.query(`SELECT indexname FROM ${quotePg(hypopg.schema)}.hypopg_create_index($1)`, [definition]);
      const plan = await explain();
      const entry: Tried = { ...candidate, cost: totalCost(plan), used: usesIndex(plan, textOf(created?.indexname)) };
      tried.push(entry);
      plans.set(entry, plan);
      await session.query('RELEASE SAVEPOINT dbmon_candidate');
    } catch (error) {
      await session.query('ROLLBACK TO SAVEPOINT dbmon_candidate');
      tried.push({ ...candidate, cost: null, used: false, error: (error as Error).message });
    } finally {
      await session.query(`SELECT ${quotePg(hypopg.schema)}.hypopg_reset()`);
    }
  }
  const useful = tried.filter((entry) => entry.used && entry.cost !== null && entry.cost < costBefore);
  const evidenceBase = {
    method: 'hypopg',
    hypopg: hypopg.state,
    plan_before: planExcerpt(before),
    candidates: tried.map(({ columns, table, cost, used, error }) => ({ table, columns, cost, uses_index: used, ...(error && { error }) })),
    ...(covered.length > 0 && { covered_by_existing: covered }),
  };
  if (useful.length === 0) return noSuggestion(`No hypothetical index lowers the planner's cost (${tried.length} tried); ${alreadyIndexed(before)}`);
  const bestCost = Math.min(...useful.map((entry) => entry.cost!));
  // A second column has to earn its place: the fewest columns within 10 % of the best cost win.
  const best = useful
    .filter((entry) => entry.cost! <= bestCost * 1.1 + 0.01)
    .sort((a, b) => a.columns.length - b.columns.length || a.cost! - b.cost!)[0]!;
  const improvement = round(((costBefore - best.cost!) / costBefore) * 100);
  if (improvement < options.minImprovementPct) {
    return noSuggestion(
      `The best hypothetical index, ${best.table} (${best.columns.join(', ')}), lowers the planner's cost by ${improvement} % only ` +
        `(${costBefore} to ${best.cost}); the threshold is ${options.minImprovementPct} %`,
    );
  }
  const name = await freeRelationName(session, best.schema, indexNameFor(best.table, best.columns, 63));
  return {
    analysis: { query_id: statement.query_id, outcome: 'suggestion', detail: `Index on ${best.table} (${best.columns.join(', ')})` },
    suggestion: indexSuggestion(statement, best, name, {
      costBefore,
      costAfter: best.cost!,
      improvement,
      confidence: 'high',
      summary:
        `Create an index on ${best.schema}.${best.table} (${best.columns.join(', ')}): the planner's cost of the statement falls ` +
        `from ${costBefore} to ${best.cost} (${improvement} % lower), measured with a hypothetical index`,
      evidence: { ...evidenceBase, plan_after: planExcerpt(plans.get(best)!) },
    }),
  };
}

/**
 * Without hypopg: a sequential scan of a large table whose filter keeps a small fraction of the
 * rows gets an index on its equality columns (or its range column). Lower confidence: the planner
 * did not confirm it would use the index. Join-only scans get nothing here.
 */
async function heuristic(
  session: SqlSession,
  statement: AnalyzeStatement,
  before: PlanNode,
  reason: string,
  options: AdvisorOptions,
): Promise<StatementReport> {
  const costBefore = totalCost(before);
  const tables = await candidateTables(session, before, options);
  const noSuggestion = (detail: string): StatementReport => ({
    analysis: { query_id: statement.query_id, outcome: 'no_suggestion', detail: `${detail} (heuristic: ${reason})` },
  });
  if (tables.length === 0) return noSuggestion(capitalized(alreadyIndexed(before)));
  let best: { candidate: Candidate; selectivity: number; scan: Scan; rows: number } | undefined;
  for (const table of tables) {
    const rows = table.info.rows;
    if (rows === null || rows < options.minTableRows) continue;
    for (const scan of table.scans) {
      if (scan.filter === null) continue;
      const filterUses = columnUses({ Filter: scan.filter } as PlanNode).filter((use) => table.info.columns.has(use.column) && use.alias === scan.alias);
      const equality = [...new Set(filterUses.filter((use) => use.role === 'equality').map((use) => use.column))];
      const range = [...new Set(filterUses.filter((use) => use.role === 'range').map((use) => use.column))];
      const columns = equality.length > 0 ? equality.slice(0, 2) : range.slice(0, 1);
      if (columns.length === 0) continue;
      const selectivity = Math.min(1, scan.rows / rows);
      if (selectivity > options.maxSelectivity || coveringIndex(table.indexes, columns) !== undefined) continue;
      if (best === undefined || selectivity < best.selectivity) best = { candidate: { schema: table.schema, table: table.table, columns }, selectivity, scan, rows };
    }
  }
  if (best === undefined) {
    return noSuggestion(`No sequential scan of a table of ${options.minTableRows}+ rows keeps at most ${options.maxSelectivity * 100} % of its rows`);
  }
  const improvement = round((1 - best.selectivity) * 100);
  if (improvement < options.minImprovementPct) return noSuggestion(`The estimated gain, ${improvement} %, is under the threshold`);
  const { candidate } = best;
  const name = await freeRelationName(session, candidate.schema, indexNameFor(candidate.table, candidate.columns, 63));
  return {
    analysis: { query_id: statement.query_id, outcome: 'suggestion', detail: `Index on ${candidate.table} (${candidate.columns.join(', ')}), heuristic` },
    suggestion: indexSuggestion(statement, candidate, name, {
      costBefore,
      costAfter: null,
      improvement,
      confidence: 'low',
      summary:
        `Create an index on ${candidate.schema}.${candidate.table} (${candidate.columns.join(', ')}): a sequential scan reads about ` +
        `${Math.round(best.rows)} rows to keep about ${Math.round(best.scan.rows)}. Heuristic estimate (rows read), not confirmed by the planner`,
      evidence: {
        method: 'heuristic',
        hypopg: 'unavailable',
        reason,
        plan_before: planExcerpt(before),
        table_rows: best.rows,
        scan_rows: best.scan.rows,
        selectivity: best.selectivity,
      },
    }),
  };
}

function indexSuggestion(
  statement: AnalyzeStatement,
  candidate: Candidate,
  name: string,
  details: { costBefore: number; costAfter: number | null; improvement: number; confidence: Suggestion['confidence']; summary: string; evidence: Record<string, unknown> },
): Suggestion {
  return {
    kind: 'create_index',
    query_id: statement.query_id,
    summary: details.summary,
    statement: createIndexStatement(candidate.schema, candidate.table, name, candidate.columns),
    target: { schema: candidate.schema, table: candidate.table, index_name: name, columns: candidate.columns },
    estimated_improvement_pct: details.improvement,
    cost_before: details.costBefore,
    cost_after: details.costAfter,
    confidence: details.confidence,
    evidence: details.evidence,
  };
}

export function createIndexStatement(schema: string, table: string, name: string, columns: readonly string[]): string {
  return `CREATE INDEX CONCURRENTLY ${quotePg(name)} ON ${quotePg(schema)}.${quotePg(table)} (${columns.map(quotePg).join(', ')})`;
}

function alreadyIndexed(plan: PlanNode): string {
  const indexes = new Set<string>();
  walk(plan, (node) => {
    if (typeof node['Index Name'] === 'string') indexes.add(node['Index Name']);
  });
  return indexes.size > 0
    ? `the plan already reads through ${[...indexes].join(', ')} and has no sequential scan to replace`
    : 'the plan has no sequential scan an index could replace';
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
