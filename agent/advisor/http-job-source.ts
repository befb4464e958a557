import { z } from 'zod';
import { agentErrorBody, refusesResult } from '../../common/agent-protocol/error-codes.js';
import type { JobResult } from '../../common/agent-protocol/job-results.js';
import { agentPaths, jobResultPath } from '../../common/agent-protocol/paths.js';
import { AgentHttpClient, describeFailure, type AgentServerConnection } from '../delivery/agent-http-client.js';
import { ResultRefusedError, type JobSource } from './job-runner.js';

/** The list only: the job runner validates each job on its own, so one it cannot read does not hold up the others. */
const jobList = z.object({ jobs: z.array(z.unknown()) });

/** The jobs half of the agent protocol: `GET /v1/agent/jobs`, `POST /v1/agent/jobs/{id}/result`. */
export class HttpJobSource implements JobSource {
  readonly #client: AgentHttpClient;

  constructor(connection: AgentServerConnection) {
    this.#client = new AgentHttpClient(connection);
  }

  async fetchJobs(signal?: AbortSignal): Promise<unknown[]> {
    const response = await this.#client.request('GET', agentPaths.jobs, undefined, signal);
    if (response.status !== 200) throw new Error(describeFailure('GET', agentPaths.jobs, response));
    const parsed = jobList.safeParse(response.body);
    if (!parsed.success) throw new Error(`GET ${agentPaths.jobs}: unreadable answer`);
    return parsed.data.jobs;
  }

  async reportResult(jobId: string, result: JobResult, signal?: AbortSignal): Promise<void> {
    const path = jobResultPath(jobId);
    const response = await this.#client.request('POST', path, JSON.stringify(result), signal);
    if (response.status === 200) return;
    const problem = describeFailure('POST', path, response);
    const code = agentErrorBody.safeParse(response.body).data?.error.code;
    if (refusesResult(response.status, code)) throw new ResultRefusedError(problem);
    throw new Error(problem);
  }
}
