import type { ThrottleDecision } from '../throttling/throttled-error.js';
import { WindowedCounter } from '../throttling/windowed-counter.js';

export const smsPerUser = 5;
export const smsPerNumber = 5;
const windowMs = 3_600_000;

/**
 * How many SMS may go out, in one-hour windows: 5 per user (whatever the numbers) and 5 per number
 * (whatever the users), so neither an account nor many accounts can flood a phone or run up the bill.
 */
export class SmsSendLimit {
  readonly #users = new WindowedCounter(windowMs);
  readonly #numbers = new WindowedCounter(windowMs);

  /** Counts one message, or refuses it when the user or the number has had enough this hour. */
  take(userId: string, phone: string, nowMs: number): ThrottleDecision {
    const used = Math.max(this.#users.current(userId, nowMs)?.count ?? 0, this.#numbers.current(phone, nowMs)?.count ?? 0);
    const resetAt = Math.max(this.#users.resetAt(userId, nowMs), this.#numbers.resetAt(phone, nowMs));
    const limit = Math.min(smsPerUser, smsPerNumber);
    if (used >= limit) return { allowed: false, limit, remaining: 0, resetAt };
    this.#users.add(userId, nowMs, 1);
    this.#numbers.add(phone, nowMs, 1);
    return { allowed: true, limit, remaining: limit - used - 1, resetAt };
  }
}
