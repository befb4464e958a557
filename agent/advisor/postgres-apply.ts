import type { SqlSession } from '../sources/sql-session.js';
import { quotePg } from './identifiers.js';
import type { JobResult } from '../../common/agent-protocol/job-results.js';
import type { ApplyJob } from '../../common/agent-protocol/optimization-jobs.js';
import type { AdvisorOptions } from './advisor-options.js';
import { createIndexStatement, genericPlan } from './postgres-advisor.js';
import { coveringIndex, indexesOf } from './postgres-catalog.js';
import { guardPlanning } from './postgres-planning-guard.js';
import { planExcerpt, totalCost, usesIndex } from './postgres-plan.js';
import { checkStatement } from './statement-guard.js';

/** Advisory lock key: 'dbmn' and 1. PostgreSQL scopes advisory locks to the database, so this is one apply at a time per database. */
const LOCK_CLASS = 0x64626d6e;
const LOCK_OBJECT = 1;

type ApplyResult = Extract<JobResult, { kind: 'apply' }>;

/**
 * Applies an index suggestion on PostgreSQL without blocking writes: under an advisory lock,
 * after checking again that no such index exists, with CREATE/DROP INDEX CONCURRENTLY and a
 * lock_timeout. An invalid index left by a failed build (this one or an earlier one) is dropped.
 * Then a fresh generic plan of the statement gives the cost after applying.
 */
export async function applyPostgres(session: SqlSession, job: ApplyJob, options: AdvisorOptions): Promise<ApplyResult> {
  const [lock] = await session.query('SELECT pg_try_advisory_lock($1, $2) AS locked', [LOCK_CLASS, LOCK_OBJECT]);
  if (lock?.locked !== true) return failed('Another dbmon apply holds the advisory lock on this database; try again when it is done');
  try {
    await session.query(`SET lock_timeout = ${Math.round(options.concurrentIndexLockTimeoutMs)}`);
    return job.apply.kind === 'create_index' ? await createIndex(session, job, options) : await dropIndex(session, job);
  } finally {
    await session.query('SELECT pg_advisory_unlock($1, $2)', [LOCK_CLASS, LOCK_OBJECT]).catch(() => undefined);
  }
}

async function createIndex(session: SqlSession, job: ApplyJob, options: AdvisorOptions): Promise<ApplyResult> {
  const { schema, table, index_name: name, columns } = job.apply.target;
  if (columns.length === 0) return failed('The suggestion names no column');
  const qualifiedName = `${quotePg(schema)}.${quotePg(name)}`;
  const [exists] = await session.query('SELECT to_regclass($1) IS NOT NULL AS present', [`${quotePg(schema)}.${quotePg(table)}`]);
  if (exists?.present !== true) return failed(`Table ${schema}.${table} does not exist any more`);
  const evidence: Record<string, unknown> = {};
  const existing = await indexesOf(session, schema, table);
  const sameName = existing.find((index) => index.name === name);
  if (sameName !== undefined && !sameName.valid) {
    await session.query(`DROP INDEX CONCURRENTLY IF EXISTS ${qualifiedName}`);
    evidence.dropped_invalid_index = name;
  } else if (sameName !== undefined) {
    return failed(`An index named ${schema}.${name} exists already (${sameName.columns.join(', ')}); nothing was created`);
  }
  const equivalent = coveringIndex(existing, columns);
  if (equivalent !== undefined) {
    return failed(`An equivalent index exists already: ${schema}.${equivalent.name} (${equivalent.columns.join(', ')}); nothing was created`);
  }
  const statement = createIndexStatement(schema, table, name, columns);
  evidence.statement = statement;
  try {
    await session.query(statement);
  } catch (error) {
    const message = (error as Error).message;
    const cleanup = await dropIfInvalid(session, schema, table, name);
    return failed(`${statement} failed: ${message}${cleanup}`, evidence);
  }
  const built = (await indexesOf(session, schema, table)).find((index) => index.name === name);
  if (built === undefined || !built.valid) {
    const cleanup = await dropIfInvalid(session, schema, table, name);
    return failed(`The index ${schema}.${name} was not valid after the build${cleanup}`, evidence);
  }
  evidence.index_valid = true;
  const plan = await freshPlan(session, job.apply.query, options);
  if (plan === undefined) return { kind: 'apply', outcome: 'applied', cost_after_apply: null, evidence };
  if ('error' in plan) return { kind: 'apply', outcome: 'applied', cost_after_apply: null, evidence: { ...evidence, plan_error: plan.error } };
  return {
    kind: 'apply',
    outcome: 'applied',
    cost_after_apply: totalCost(plan.root),
    evidence: { ...evidence, plan_after_apply: planExcerpt(plan.root), uses_index: usesIndex(plan.root, name) },
  };
}

async function dropIndex(session: SqlSession, job: ApplyJob): Promise<ApplyResult> {
  const { schema, table, index_name: name } = job.apply.target;
  const index = (await indexesOf(session, schema, table)).find((candidate) => candidate.name === name);
  if (index === undefined) return failed(`There is no index ${schema}.${name} on ${table} any more; nothing was dropped`);
  if (index.primary || index.backsConstraint) return failed(`${schema}.${name} backs a constraint; it is not dropped`);
  const statement = `DROP INDEX CONCURRENTLY ${quotePg(schema)}.${quotePg(name)}`;
  try {
    await session.query(statement);
  } catch (error) {
    return failed(`${statement} failed: ${(error as Error).message}`);
  }
  return { kind: 'apply', outcome: 'applied', cost_after_apply: null, evidence: { statement } };
}

/** A failed concurrent build leaves an INVALID index that still slows every write: it goes. */
async function dropIfInvalid(session: SqlSession, schema: string, table: string, name: string): Promise<string> {
  try {
    const left = (await indexesOf(session, schema, table)).find((index) => index.name === name);
    if (left === undefined || left.valid) return '';
    await session.query(`DROP INDEX CONCURRENTLY IF EXISTS ${quotePg(schema)}.${quotePg(name)}`);
    return '; the invalid index it left was dropped';
  } catch (error) {
    return `; the invalid index it left could not be dropped: ${(error as Error).message}`;
  }
}

/** The statement's generic plan now, in a read-only transaction that is rolled back. */
async function freshPlan(session: SqlSession, query: string | null, options: AdvisorOptions) {
  if (query === null) return undefined;
  const verdict = checkStatement(query, 'postgresql');
  if (!verdict.ok) return { error: `not planned: ${verdict.reason}` };
  try {
    await session.query('BEGIN READ ONLY');
    await session.query(`SET LOCAL statement_timeout = ${Math.round(options.analysisTimeoutMs)}`);
    await session.query(`SET LOCAL lock_timeout = ${Math.round(options.lockTimeoutMs)}`);
    const refusal = await guardPlanning(session, verdict.tokens);
    if (refusal !== undefined) return { error: `not planned: ${refusal}` };
    await session.query('SET LOCAL plan_cache_mode = force_generic_plan');
    return { root: await genericPlan(session, verdict.text) };
  } catch (error) {
    return { error: (error as Error).message };
  } finally {
    await session.query('ROLLBACK').catch(() => undefined);
    await session.query('DEALLOCATE ALL').catch(() => undefined);
  }
}

function failed(error: string, evidence?: Record<string, unknown>): ApplyResult {
  return { kind: 'apply', outcome: 'failed', error, cost_after_apply: null, ...(evidence && { evidence }) };
}
