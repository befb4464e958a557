import { z } from 'zod';
import { assignmentsSchema, type AssignmentSource, type Assignments } from './assignment.js';
import { AuthRefusedError, RejectedBatchError, RetryableError } from './delivery-errors.js';
import type { Ack, OutgoingBatch, Transport } from './transport.js';

export interface HttpTransportOptions {
  /** Base address of the dbmon server, e.g. `https://dbmon.example.com` (no `/v1`). */
  serverUrl: string;
  /** A service-account key with the `agent` scope. */
  agentKey: string;
  /** Sent as `User-Agent: dbmon-agent/<version>`. */
  version: string;
  /** Sent as `X-Dbmon-Agent-Hostname`. */
  hostname: string;
  /** Deadline of one request, response body included. */
  timeoutMs: number;
}

const ackSchema = z.object({
  batch_id: z.string(),
  stored: z.number().int().min(0),
  duplicate: z.boolean(),
  rejected: z.number().int().min(0),
});

const errorBodySchema = z.object({
  error: z.object({ type: z.string(), message: z.string(), code: z.string().optional(), retry_after: z.number().optional() }),
});

/**
 * The agent protocol over HTTP. Every failure is one of the delivery errors, so callers decide
 * by class, never by message. The key lives in a private field and appears in no message.
 */
export class HttpTransport implements Transport, AssignmentSource {
  readonly #options: HttpTransportOptions;

  constructor(options: HttpTransportOptions) {
    this.#options = { ...options, serverUrl: options.serverUrl.replace(/\/+$/, '') };
  }

  async sendBatch(batch: OutgoingBatch, signal?: AbortSignal): Promise<Ack> {
    const response = await this.#request('POST', '/v1/agent/samples', JSON.stringify(batch), signal);
    const ack = ackSchema.safeParse(response.body);
    // The server may have stored the batch: resending it is safe, it answers duplicate=true.
    if (!ack.success) throw new RetryableError('the server acknowledged with an unreadable body');
    return ack.data;
  }

  async fetchAssignments(signal?: AbortSignal): Promise<Assignments> {
    const response = await this.#request('GET', '/v1/agent/assignments', undefined, signal);
    const assignments = assignmentsSchema.safeParse(response.body);
    if (!assignments.success) {
      const issue = assignments.error.issues[0]!;
      throw new RetryableError(`the server sent unreadable assignments: ${issue.path.join('.')}: ${issue.message}`);
    }
    return assignments.data;
  }

  async #request(method: string, path: string, body: string | undefined, signal?: AbortSignal): Promise<{ body: unknown }> {
    const { serverUrl, agentKey, version, hostname, timeoutMs } = this.#options;
    const timeout = AbortSignal.timeout(timeoutMs);
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${serverUrl}${path}`, {
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
      text = await response.text();
    } catch (error) {
      throw new RetryableError(`${method} ${path}: ${describeNetworkError(error, timeout, timeoutMs)}`);
    }
    const parsed = parseJson(text);
    if (response.status === 200) return { body: parsed };

    const problem = `${method} ${path}: ${response.status} ${describeErrorBody(parsed, text)}`;
    if (response.status === 401 || response.status === 403) {
      throw new AuthRefusedError(`the server refused the agent key: ${problem}`, response.status);
    }
    if (response.status === 400 || response.status === 413 || response.status === 422) {
      throw new RejectedBatchError(problem, response.status);
    }
    if (response.status === 429) {
      throw new RetryableError(problem, retryAfterMs(response.headers.get('retry-after'), parsed));
    }
    throw new RetryableError(problem);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function describeErrorBody(parsed: unknown, text: string): string {
  const body = errorBodySchema.safeParse(parsed);
  if (body.success) {
    const { type, code, message } = body.data.error;
    return `${type}${code === undefined ? '' : ` (${code})`}: ${message}`;
  }
  return text.length === 0 ? '(empty body)' : text.slice(0, 200);
}

function describeNetworkError(error: unknown, timeout: AbortSignal, timeoutMs: number): string {
  if (timeout.aborted) return `no answer within ${timeoutMs} ms`;
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    const code = typeof cause === 'object' && cause !== null ? (cause as { code?: unknown }).code : undefined;
    if (typeof code === 'string') return `cannot reach the server (${code})`;
    if (cause instanceof Error) return `cannot reach the server (${cause.message})`;
    return error.message;
  }
  return String(error);
}

/** Retry-After as seconds or an HTTP date; else the body's `retry_after` (Unix seconds). */
export function retryAfterMs(header: string | null, body: unknown, nowMs = Date.now()): number | undefined {
  if (header !== null && header.trim() !== '') {
    const trimmed = header.trim();
    if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
    const date = Date.parse(trimmed);
    if (Number.isFinite(date)) return Math.max(0, date - nowMs);
  }
  const parsed = errorBodySchema.safeParse(body);
  const at = parsed.success ? parsed.data.error.retry_after : undefined;
  return at === undefined ? undefined : Math.max(0, at * 1000 - nowMs);
}
