import { textOf } from '../sources/row.js';
import type { MysqlSession } from '../sources/mysql-session.js';
import type { JobResult } from '../../common/agent-protocol/job-results.js';
import type { ApplyJob } from '../../common/agent-protocol/optimization-jobs.js';
import type { AdvisorOptions } from './advisor-options.js';
import { explain } from './mysql-advisor.js';
import { alterAddIndex, alterDropIndex, lexerModes, mysqlCoveringIndex, mysqlIndexes } from './mysql-catalog.js';
import { planText, rowsExamined, tableAccesses } from './mysql-plan.js';
import { executableDigest } from './mysql-statement.js';
import { checkStatement } from './statement-guard.js';

type ApplyResult = Extract<JobResult, { kind: 'apply' }>;

/**
 * Applies an index suggestion on MySQL/MariaDB online: under a named lock (GET_LOCK), after
 * checking again that no such index exists, with ALTER TABLE ... ALGORITHM=INPLACE, LOCK=NONE
 * (the engine refuses rather than copying or locking the table) and a short lock_wait_timeout,
 * since a waiting ALTER's metadata lock request holds up the application's statements on the table.
 */
export async function applyMysql(session: MysqlSession, job: ApplyJob, options: AdvisorOptions): Promise<ApplyResult> {
  const lockName = `dbmon_apply:${session.schema}`;
  const [lock] = await session.query('SELECT GET_LOCK(?, 0) AS locked', [lockName]);
  if (Number(lock?.locked) !== 1) return failed('Another dbmon apply holds the lock on this database; try again when it is done');
  try {
    await session.query(`SET SESSION lock_wait_timeout = ${Math.max(1, Math.ceil(options.lockTimeoutMs / 1000))}`);
    const { schema, table, index_name: name, columns } = job.apply.target;
    const indexes = await mysqlIndexes(session, schema, table);
    if (job.apply.kind === 'drop_index') {
      if (!indexes.some((index) => index.name === name)) return failed(`There is no index ${name} on ${schema}.${table} any more; nothing was dropped`);
      if (name === 'PRIMARY') return failed('The primary key is not dropped');
      const statement = alterDropIndex(schema, table, name);
      try {
        await session.query(statement);
      } catch (error) {
        return failed(`${statement} failed: ${(error as Error).message}`);
      }
      return { kind: 'apply', outcome: 'applied', cost_after_apply: null, evidence: { statement } };
    }
    if (columns.length === 0) return failed('The suggestion names no column');
    if (indexes.some((index) => index.name.toLowerCase() === name.toLowerCase())) {
      return failed(`An index named ${name} exists already on ${schema}.${table}; nothing was created`);
    }
    const equivalent = mysqlCoveringIndex(indexes, columns);
    if (equivalent !== undefined) return failed(`An equivalent index exists already: ${equivalent.name}; nothing was created`);
    const statement = alterAddIndex(schema, table, name, columns);
    try {
      await session.query(statement);
    } catch (error) {
      return failed(`${statement} failed: ${(error as Error).message}`, { statement });
    }
    const evidence: Record<string, unknown> = { statement, index_present: (await mysqlIndexes(session, schema, table)).some((index) => index.name === name) };
    const after = await freshPlan(session, job.apply.query, name);
    return { kind: 'apply', outcome: 'applied', cost_after_apply: after.rows, evidence: { ...evidence, ...after.evidence } };
  } finally {
    await session.query('SELECT RELEASE_LOCK(?)', [lockName]).catch(() => undefined);
  }
}

async function freshPlan(session: MysqlSession, query: string | null, indexName: string): Promise<{ rows: number | null; evidence: Record<string, unknown> }> {
  if (query === null) return { rows: null, evidence: {} };
  const verdict = checkStatement(query, 'mysql', await lexerModes(session));
  const sql = verdict.ok ? executableDigest(verdict.text, verdict.tokens) : undefined;
  if (!verdict.ok || sql === undefined) return { rows: null, evidence: { plan_error: 'the statement cannot be planned' } };
  try {
    const explained = await explain(session, sql, verdict.kind === 'select');
    const accesses = tableAccesses(explained);
    return {
      rows: Math.round(rowsExamined(accesses)),
      evidence: {
        cost_unit: 'rows_examined',
        plan_after_apply: planText(explained),
        uses_index: accesses.some((access) => textOf(access.key) === indexName),
      },
    };
  } catch (error) {
    return { rows: null, evidence: { plan_error: (error as Error).message } };
  }
}

function failed(error: string, evidence?: Record<string, unknown>): ApplyResult {
  return { kind: 'apply', outcome: 'failed', error, cost_after_apply: null, ...(evidence && { evidence }) };
}
