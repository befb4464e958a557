import { RateLimitError } from '../../errors.js';

/** What a brute-force limit decided about one attempt. */
export interface ThrottleDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the window that decided ends. */
  resetAt: number;
}

/** An attempt refused by a brute-force limit: the contract's 429, with what its X-RateLimit-* headers say. */
export class ThrottledError extends RateLimitError {
  constructor(readonly decision: ThrottleDecision, nowMs: number) {
    super(decision.resetAt, Math.floor(nowMs / 1000));
  }
}
