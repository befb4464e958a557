export interface RetryPolicy {
  /** Retries after the first attempt (default 2). */
  maxRetries: number;
  /** A Retry-After longer than this (seconds, default 60) is not waited for: the error is thrown. */
  maxRetryWaitSeconds: number;
}

/** What came of one attempt that did not succeed. */
export type FailedAttempt =
  | { kind: 'answer'; status: number; retryAfterSeconds: number | undefined }
  /** `refusedBeforeSending`: the connection was refused, so the server cannot have seen the request. */
  | { kind: 'connection'; refusedBeforeSending: boolean };

const idempotentMethods = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
const backoffBaseMs = 500;
const backoffCapMs = 8_000;

/**
 * Milliseconds to wait before retrying, or undefined not to retry. A 429 is retried whatever the
 * method (the server did not act on it); a 5xx or a failed connection only for an idempotent
 * method, or when the connection was refused before anything was sent. Retry-After is honoured
 * exactly; without it, exponential backoff with full jitter.
 */
export function retryDelayMs(policy: RetryPolicy, method: string, failure: FailedAttempt, retriesDone: number, random: () => number = Math.random): number | undefined {
  if (retriesDone >= policy.maxRetries || !isRetryable(method, failure)) return undefined;
  const retryAfter = failure.kind === 'answer' ? failure.retryAfterSeconds : undefined;
  if (retryAfter === undefined) return Math.floor(random() * Math.min(backoffCapMs, backoffBaseMs * 2 ** retriesDone));
  return retryAfter <= policy.maxRetryWaitSeconds ? retryAfter * 1000 : undefined;
}

function isRetryable(method: string, failure: FailedAttempt): boolean {
  if (failure.kind === 'connection') return failure.refusedBeforeSending || idempotentMethods.has(method);
  if (failure.status === 429) return true;
  return failure.status >= 500 && idempotentMethods.has(method);
}
