import { z } from 'zod';
import type { JobResult } from './job.js';
import { AgentHttpClient, describeFailure, errorBodySchema, type AgentServerConnection } from '../delivery/agent-http-client.js';
import { ResultRefusedError, refusesResult, type JobSource } from './job-runner.js';

const jobList = z.object({ jobs: z.array(z.unknown()) });

/** The jobs half of the agent protocol: `GET /v1/agent/jobs`, `POST /v1/agent/jobs/{id}/result`. */
export class HttpJobSource implements JobSource {
  readonly #client: AgentHttpClient;

  constructor(connection: AgentServerConnection) {
    this.#client = new AgentHttpClient(connection);
  }

  async fetchJobs(signal?: AbortSignal): Promise<unknown[]> {
    const response = await this.#client.request('GET', '/v1/agent/jobs', undefined, signal);
    if (response.status !== 200) throw new Error(describeFailure('GET', '/v1/agent/jobs', response));
    const parsed = jobList.safeParse(response.body);
    if (!parsed.success) throw new Error('GET /v1/agent/jobs: unreadable answer');
    return parsed.data.jobs;
  }

  async reportResult(jobId: string, result: JobResult, signal?: AbortSignal): Promise<void> {
    const path = `/v1/agent/jobs/${encodeURIComponent(jobId)}/result`;
    const response = await this.#client.request('POST', path, JSON.stringify(result), signal);
    if (response.status === 200) return;
    const problem = describeFailure('POST', path, response);
    const code = errorBodySchema.safeParse(response.body).data?.error.code;
    if (refusesResult(response.status, code)) throw new ResultRefusedError(problem);
    throw new Error(problem);
  }
}
