export interface RetryPolicy {
  /** Ceiling of the first retry's delay; it doubles with each attempt. */
  baseDelayMs: number;
  /** Largest ceiling of one delay. */
  maxDelayMs: number;
  /** Failed deliveries are retried until at least this long after the event; the attempt after that is the last. */
  retryForMs: number;
  /** A Retry-After longer than this is cut to it. */
  maxRetryAfterMs: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  baseDelayMs: 10_000,
  maxDelayMs: 2 * 3_600_000,
  retryForMs: 24 * 3_600_000,
  maxRetryAfterMs: 24 * 3_600_000,
};

/**
 * When to try a failed delivery again, or undefined to give up. Exponential backoff with full
 * jitter (a uniform delay between 0 and min(max, base × 2^(attempts − 1))); a Retry-After from
 * the receiver is a floor. Retries go on until the event is `retryForMs` old.
 */
export function nextAttemptAt(
  input: { attempts: number; createdAtMs: number; nowMs: number; retryAfterMs?: number | undefined },
  policy: RetryPolicy,
  random: () => number,
): number | undefined {
  if (input.nowMs - input.createdAtMs >= policy.retryForMs) return undefined;
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, input.attempts - 1));
  const jittered = Math.floor(random() * ceiling);
  const floor = Math.min(input.retryAfterMs ?? 0, policy.maxRetryAfterMs);
  return input.nowMs + Math.max(jittered, floor);
}
