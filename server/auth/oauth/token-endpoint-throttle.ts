import type { Context } from 'koa';
import { rateLimitAddress } from '../../http/rate-limit-address.js';
import { sendRateLimitHeaders } from '../../http/rate-limit-headers.js';
import { FailureThrottle } from '../throttling/failure-throttle.js';
import { ThrottledError, type ThrottleDecision } from '../throttling/throttled-error.js';

/**
 * Failed token and revocation requests allowed per client and per client address in 15 minutes,
 * whatever the plan. Guessing a secret, code or token needs far more; a real client serving many
 * users fails honestly now and then (a refresh token that expired or was withdrawn), and succeeding
 * uses nothing up, so the plan's hourly limit does not apply to these endpoints at all.
 */
export const tokenEndpointFailureLimit = 60;
const windowMs = 15 * 60_000;

/** Names the client once the request has said which it is: from then on the attempt counts for it too. */
export type CountForClient = (clientId: string) => void;

/**
 * The brute-force limits of the endpoints where a client authenticates (CONTRACT.md, Rate limits):
 * per client address (IPv6 per /64) from the start, per client once it is named. Every answer carries
 * the X-RateLimit-* headers of the tighter of the two; a refusal is the contract's 429.
 */
export class TokenEndpointThrottle {
  readonly #failures = new FailureThrottle(tokenEndpointFailureLimit, windowMs);

  attempt<T>(ctx: Context, now: Date, work: (countForClient: CountForClient) => T): T {
    const nowMs = now.getTime();
    const keys = [`address:${rateLimitAddress(ctx.ip)}`];
    const byAddress = this.#failures.begin(keys, nowMs);
    let shown = this.#answer(ctx, byAddress, nowMs);
    const result = work((clientId) => {
      keys.push(`client:${clientId}`);
      const byClient = this.#failures.begin(keys.slice(1), nowMs);
      // A refusal for the client leaves the attempt counted for the address: it failed.
      shown = this.#answer(ctx, !byClient.allowed || byClient.remaining < byAddress.remaining ? byClient : byAddress, nowMs);
    });
    this.#failures.succeeded(keys, nowMs);
    this.#answer(ctx, { ...shown, remaining: shown.remaining + 1 }, nowMs);
    return result;
  }

  #answer(ctx: Context, decision: ThrottleDecision, nowMs: number): ThrottleDecision {
    sendRateLimitHeaders(ctx, decision, nowMs);
    if (!decision.allowed) throw new ThrottledError(decision, nowMs);
    return decision;
  }
}
