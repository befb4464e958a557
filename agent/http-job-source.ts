import { z } from 'zod';
import type { JobResult } from './advisor/job.js';
import { ResultRefusedError, type JobSource } from './job-runner.js';

export interface HttpJobSourceOptions {
  /** Base address of the dbmon server, e.g. `https://dbmon.example.com` (no `/v1`). */
  serverUrl: string;
  /** A service-account key with the `agent` scope and write permission. */
  agentKey: string;
  version: string;
  hostname: string;
  timeoutMs: number;
}

const jobList = z.object({ jobs: z.array(z.unknown()) });

/** The jobs half of the agent protocol: `GET /v1/agent/jobs`, `POST /v1/agent/jobs/{id}/result`. */
export class HttpJobSource implements JobSource {
  readonly #options: HttpJobSourceOptions;

  constructor(options: HttpJobSourceOptions) {
    this.#options = { ...options, serverUrl: options.serverUrl.replace(/\/+$/, '') };
  }

  async fetchJobs(signal?: AbortSignal): Promise<unknown[]> {
    const { status, body } = await this.#request('GET', '/v1/agent/jobs', undefined, signal);
    if (status !== 200) throw new Error(`GET /v1/agent/jobs: ${status} ${describe(body)}`);
    const parsed = jobList.safeParse(body);
    if (!parsed.success) throw new Error('GET /v1/agent/jobs: unreadable answer');
    return parsed.data.jobs;
  }

  async reportResult(jobId: string, result: JobResult, signal?: AbortSignal): Promise<void> {
    const path = `/v1/agent/jobs/${encodeURIComponent(jobId)}/result`;
    const { status, body } = await this.#request('POST', path, JSON.stringify(result), signal);
    if (status === 200) return;
    const problem = `POST ${path}: ${status} ${describe(body)}`;
    // 404: the lease is gone (expired, or the database moved to another agent); 400: the body is refused. Neither passes on retry.
    if (status === 404 || status === 400) throw new ResultRefusedError(problem);
    throw new Error(problem);
  }

  async #request(method: string, path: string, body: string | undefined, signal?: AbortSignal): Promise<{ status: number; body: unknown }> {
    const { serverUrl, agentKey, version, hostname, timeoutMs } = this.#options;
    const timeout = AbortSignal.timeout(timeoutMs);
    const response = await fetch(`${serverUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${agentKey}`,
        'user-agent': `dbmon-agent/${version}`,
        'x-dbmon-agent-hostname': hostname,
        accept: 'application/json',
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      body,
      signal: signal === undefined ? timeout : AbortSignal.any([timeout, signal]),
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = text.slice(0, 200);
    }
    return { status: response.status, body: parsed };
  }
}

function describe(body: unknown): string {
  const error = (body as { error?: { type?: string; code?: string; message?: string } } | undefined)?.error;
  return error === undefined ? String(body ?? '') : `${error.type}${error.code ? ` (${error.code})` : ''}: ${error.message}`;
}
