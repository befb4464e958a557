import type { Logger } from 'pino';
import type { ConnectionSettings } from '../sources/connection-settings.js';
import type { SqlSession } from '../sources/sql-session.js';
import type { JobResult, StatementAnalysis, Suggestion } from '../../common/agent-protocol/job-results.js';
import type { AgentJob, AnalyzeJob } from '../../common/agent-protocol/optimization-jobs.js';
import type { AdvisorOptions } from './advisor-options.js';

export interface RunJobContext {
  options: AdvisorOptions;
  logger: Logger;
  /** Aborting closes the job's connection, which cancels the statement in flight. */
  signal?: AbortSignal;
  /** Connection settings to use instead of the job's (a database configured on the agent's host). */
  connection?: ConnectionSettings;
}

/**
 * Runs one job of the agent protocol against its database, on a connection of its own, and
 * returns the result to report. Never throws: a failure is a result that says what failed,
 * with the engine's exact message.
 */
export async function runJob(job: AgentJob, ctx: RunJobContext): Promise<JobResult> {
  const logger = ctx.logger.child({ jobId: job.id, kind: job.kind, databaseId: job.database.id });
  const failure = (error: unknown): JobResult => {
    const message = error instanceof Error ? error.message : String(error);
    logger.warn({ error: message }, 'job failed');
    return job.kind === 'analyze'
      ? { kind: 'analyze', outcome: 'failed', error: message, statements: [], suggestions: [] }
      : { kind: 'apply', outcome: 'failed', error: message, cost_after_apply: null };
  };
  const settings = ctx.connection ?? job.database.connection;
  const { options } = ctx;
  const statementTimeoutMs = job.kind === 'apply' ? options.applyTimeoutMs : options.analysisTimeoutMs;
  const sessionOptions = { statementTimeoutMs, connectTimeoutMs: options.connectTimeoutMs, ...(ctx.signal && { signal: ctx.signal }) };
  let session: SqlSession | undefined;
  try {
    // The engine's driver and advisor are loaded by its first job: an agent that never sees a MariaDB
    // job never loads mysql2, and one that collects without jobs never loads an advisor.
    if (job.database.type === 'postgresql') {
      const [{ openPostgresSession }, { applyPostgres }, { analyzePostgresStatement }, { postgresIndexHygiene }] = await Promise.all([
        import('../sources/postgres-session.js'),
        import('./postgres-apply.js'),
        import('./postgres-advisor.js'),
        import('./postgres-index-hygiene.js'),
      ]);
      const postgres = await openPostgresSession(settings, sessionOptions);
      session = postgres;
      if (job.kind === 'apply') return await applyPostgres(postgres, job, options);
      return await analyze(job, logger, options.indexHygiene ? () => postgresIndexHygiene(postgres, options) : undefined, (statement) =>
        analyzePostgresStatement(postgres, statement, options),
      );
    }
    const [{ openMysqlSession }, { applyMysql }, { analyzeMysqlStatement }, { mysqlIndexHygiene }] = await Promise.all([
      import('../sources/mysql-session.js'),
      import('./mysql-apply.js'),
      import('./mysql-advisor.js'),
      import('./mysql-index-hygiene.js'),
    ]);
    const mysql = await openMysqlSession(settings, sessionOptions);
    session = mysql;
    if (job.kind === 'apply') return await applyMysql(mysql, job, options);
    return await analyze(job, logger, options.indexHygiene ? () => mysqlIndexHygiene(mysql, options) : undefined, (statement) =>
      analyzeMysqlStatement(mysql, statement, options),
    );
  } catch (error) {
    return failure(error);
  } finally {
    await session?.close();
  }
}

async function analyze(
  job: AnalyzeJob,
  logger: Logger,
  hygiene: (() => Promise<Suggestion[]>) | undefined,
  analyzeOne: (statement: AnalyzeJob['statements'][number]) => Promise<{ analysis: StatementAnalysis; suggestion?: Suggestion }>,
): Promise<JobResult> {
  const statements: StatementAnalysis[] = [];
  const suggestions: Suggestion[] = [];
  for (const statement of job.statements) {
    const report = await analyzeOne(statement);
    statements.push(report.analysis);
    if (report.suggestion) suggestions.push(report.suggestion);
    logger.info({ queryId: statement.query_id, outcome: report.analysis.outcome, detail: report.analysis.detail }, 'statement analyzed');
  }
  if (hygiene !== undefined) {
    try {
      suggestions.push(...(await hygiene()));
    } catch (error) {
      // Index hygiene is a bonus: its failure must not cost the statement analysis.
      logger.warn({ error: (error as Error).message }, 'index hygiene check failed');
    }
  }
  return { kind: 'analyze', outcome: 'completed', statements, suggestions };
}
