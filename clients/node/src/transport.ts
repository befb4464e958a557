import { setTimeout as sleep } from 'node:timers/promises';
import { APIConnectionError, errorFromAnswer, retryAfterSeconds } from './errors.js';
import { retryDelayMs, type FailedAttempt, type RetryPolicy } from './retry-policy.js';
import { version } from './version.js';

/** The last X-RateLimit-* values the server sent. */
export interface RateLimit {
  /** Requests allowed in the current hour. */
  limit: number;
  /** Requests left in it. */
  remaining: number;
  /** Unix seconds when it resets. */
  reset: number;
}

export interface OutgoingBody {
  contentType: string;
  text: string;
}

export interface Answer {
  data: unknown;
  headers: Headers;
}

/**
 * Sends requests with the credential, retries them as the policy allows, remembers the last
 * rate-limit headers, and turns failing answers into the library's errors.
 */
export class Transport {
  #headers: Record<string, string>;
  #policy: RetryPolicy;
  #timeoutMs: number;
  rateLimit: RateLimit | undefined;

  constructor(credential: string | undefined, policy: RetryPolicy, timeoutMs: number) {
    this.#headers = { accept: 'application/json', 'user-agent': `dbmon-node/${version}` };
    if (credential !== undefined) this.#headers.authorization = `Bearer ${credential}`;
    this.#policy = policy;
    this.#timeoutMs = timeoutMs;
  }

  async send(method: string, url: URL, body?: OutgoingBody): Promise<Answer> {
    const headers = body === undefined ? this.#headers : { ...this.#headers, 'content-type': body.contentType };
    for (let retriesDone = 0; ; retriesDone += 1) {
      let answer: Response;
      let text: string;
      try {
        answer = await fetch(url, { method, headers, body: body?.text, signal: AbortSignal.timeout(this.#timeoutMs), redirect: 'manual' });
        text = await answer.text();
      } catch (error) {
        const refusedBeforeSending = connectionRefused(error);
        const delay = retryDelayMs(this.#policy, method, { kind: 'connection', refusedBeforeSending }, retriesDone);
        if (delay === undefined) throw new APIConnectionError(`${method} ${url.pathname}: ${describe(error)}`, {}, { cause: error });
        await sleep(delay);
        continue;
      }
      this.#remember(answer.headers);
      const data = parsed(text, answer.headers);
      if (answer.ok) return { data, headers: answer.headers };
      const failure: FailedAttempt = { kind: 'answer', status: answer.status, retryAfterSeconds: retryAfterSeconds(answer.headers) };
      const delay = retryDelayMs(this.#policy, method, failure, retriesDone);
      if (delay === undefined) throw errorFromAnswer(answer.status, answer.headers, data);
      await sleep(delay);
    }
  }

  #remember(headers: Headers): void {
    const limit = headers.get('x-ratelimit-limit');
    const remaining = headers.get('x-ratelimit-remaining');
    const reset = headers.get('x-ratelimit-reset');
    if (limit === null || remaining === null || reset === null) return;
    this.rateLimit = { limit: Number(limit), remaining: Number(remaining), reset: Number(reset) };
  }
}

function parsed(text: string, headers: Headers): unknown {
  if (text === '') return undefined;
  return (headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text;
}

/** fetch's failure when the connection was refused: nothing reached the server. */
function connectionRefused(error: unknown): boolean {
  return (error as { cause?: { code?: unknown } }).cause?.code === 'ECONNREFUSED';
}

function describe(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? cause.message : (error as Error).message;
}
