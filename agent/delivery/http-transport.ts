import { agentAssignments, type Assignments } from '../../common/agent-protocol/assignments.js';
import { agentErrorBody } from '../../common/agent-protocol/error-codes.js';
import { agentPaths } from '../../common/agent-protocol/paths.js';
import { batchAck, type BatchAck, type SampleBatch } from '../../common/agent-protocol/sample-batch.js';
import type { AssignmentSource } from '../assignments/assignment.js';
import { AgentHttpClient, describeFailure, type AgentServerConnection } from './agent-http-client.js';
import { AuthRefusedError, RejectedBatchError, RetryableError } from './delivery-errors.js';
import type { Transport } from './transport.js';

/**
 * The delivery half of the agent protocol over HTTP: samples and assignments. Every failure is one
 * of the delivery errors, so callers decide by class, never by message.
 */
export class HttpTransport implements Transport, AssignmentSource {
  readonly #client: AgentHttpClient;

  constructor(connection: AgentServerConnection) {
    this.#client = new AgentHttpClient(connection);
  }

  async sendBatch(batch: SampleBatch, signal?: AbortSignal): Promise<BatchAck> {
    const response = await this.#request('POST', agentPaths.samples, JSON.stringify(batch), signal);
    const ack = batchAck.safeParse(response.body);
    // The server may have stored the batch: resending it is safe, it answers duplicate=true.
    if (!ack.success) throw new RetryableError('the server acknowledged with an unreadable body');
    return ack.data;
  }

  async fetchAssignments(signal?: AbortSignal): Promise<Assignments> {
    const response = await this.#request('GET', agentPaths.assignments, undefined, signal);
    const assignments = agentAssignments.safeParse(response.body);
    if (!assignments.success) {
      const issue = assignments.error.issues[0]!;
      throw new RetryableError(`the server sent unreadable assignments: ${issue.path.join('.')}: ${issue.message}`);
    }
    return assignments.data;
  }

  async #request(method: string, path: string, body: string | undefined, signal?: AbortSignal): Promise<{ body: unknown }> {
    const response = await this.#client.request(method, path, body, signal);
    if (response.status === 200) return response;
    const problem = describeFailure(method, path, response);
    if (response.status === 401 || response.status === 403) {
      throw new AuthRefusedError(`the server refused the agent key: ${problem}`, response.status);
    }
    if (response.status === 400 || response.status === 413 || response.status === 422) {
      throw new RejectedBatchError(problem, response.status);
    }
    if (response.status === 429) {
      throw new RetryableError(problem, retryAfterMs(response.headers.get('retry-after'), response.body));
    }
    throw new RetryableError(problem);
  }
}

/** Retry-After as seconds or an HTTP date; else the body's `retry_after` (Unix seconds). */
export function retryAfterMs(header: string | null, body: unknown, nowMs = Date.now()): number | undefined {
  if (header !== null && header.trim() !== '') {
    const trimmed = header.trim();
    if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
    const date = Date.parse(trimmed);
    if (Number.isFinite(date)) return Math.max(0, date - nowMs);
  }
  const parsed = agentErrorBody.safeParse(body);
  const at = parsed.success ? parsed.data.error.retry_after : undefined;
  return at === undefined ? undefined : Math.max(0, at * 1000 - nowMs);
}
