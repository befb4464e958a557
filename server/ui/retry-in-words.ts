import type { ThrottleDecision } from '../auth/throttling/throttled-error.js';

/** When a throttled form may be tried again, in words: "15 minutes" (at least "1 minute"). */
export function retryInWords(decision: ThrottleDecision, now: Date): string {
  const minutes = Math.max(1, Math.round((decision.resetAt * 1000 - now.getTime()) / 60_000));
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}
