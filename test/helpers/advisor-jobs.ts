import pino from 'pino';
import type { AnalyzeResult, ApplyResult, Suggestion } from '../../common/agent-protocol/job-results.js';
import type { AgentJob } from '../../common/agent-protocol/optimization-jobs.js';
import { defaultAdvisorOptions, type AdvisorOptions } from '../../agent/advisor/advisor-options.js';
import { runJob } from '../../agent/advisor/run-job.js';

/** Runs advisor jobs on one database as the agent would, each with a new job id. */
export function advisorJobs(database: AgentJob['database']) {
  const logger = pino({ level: 'silent' });
  let jobs = 0;
  return {
    /** An analysis of these statement texts; index hygiene is off unless asked for. */
    analyze: async (queries: string[], options: Partial<AdvisorOptions> = {}): Promise<AnalyzeResult> =>
      (await runJob(
        {
          id: `job_${++jobs}`,
          kind: 'analyze',
          optimization_id: 'opt_x',
          database,
          statements: queries.map((query, i) => ({ query_id: `query_${i}`, query, calls: 10, total_time_ms: 100, mean_time_ms: 10 })),
        },
        { options: { ...defaultAdvisorOptions, indexHygiene: false, ...options }, logger },
      )) as AnalyzeResult,
    apply: async (
      kind: 'create_index' | 'drop_index',
      target: Suggestion['target'],
      options: Partial<AdvisorOptions> = {},
      query: string | null = null,
    ): Promise<ApplyResult> =>
      (await runJob(
        { id: `job_${++jobs}`, kind: 'apply', optimization_id: 'opt_x', database, apply: { kind, target, query } } satisfies AgentJob,
        { options: { ...defaultAdvisorOptions, ...options }, logger },
      )) as ApplyResult,
  };
}
