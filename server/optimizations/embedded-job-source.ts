import { ResultRefusedError } from '../../agent/advisor/job-runner.js';
import { refusesResult } from '../../common/agent-protocol/error-codes.js';
import { jobResult } from '../../common/agent-protocol/job-results.js';
import { ApiError } from '../errors.js';
import { parseInput } from '../http/validate.js';
import type { OptimizationJobsService } from './optimization-jobs-service.js';

/**
 * The job source of the server's embedded agent: the same leases and results as
 * `GET /v1/agent/jobs` and `POST /v1/agent/jobs/{id}/result`, in-process, for the databases
 * without agent_id. It has the shape of the agent's JobSource (agent/advisor/job-runner.ts), which
 * validates the jobs as it would over HTTP; results are validated here the same way.
 */
export function embeddedJobSource(jobs: OptimizationJobsService, now: () => Date) {
  return {
    fetchJobs: async (): Promise<unknown[]> => jobs.lease(null, now()),
    reportResult: async (jobId: string, result: unknown): Promise<void> => {
      try {
        jobs.report(null, jobId, parseInput(jobResult, result), now());
      } catch (error) {
        // The refusals HTTP answers with, told the agent's way: dropped, not offered again.
        if (error instanceof ApiError && refusesResult(error.status, error.code)) throw new ResultRefusedError(error.message);
        throw error;
      }
    },
  };
}
