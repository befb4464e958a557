import { hashToken } from '../api-keys/api-key-token.js';
import { isSecretToken, newSecretToken } from '../../crypto/secret-token.js';

/** How long a password that passed waits for the second factor. */
export const pendingSignInMs = 5 * 60_000;
/** Wrong second factors one pending sign-in takes before it ends (the password must be typed again). */
export const pendingSignInAttempts = 5;
/** Beyond this many at once the oldest are forgotten: each holds only an id and a deadline. */
const maxPending = 10_000;

export interface PendingSignIn {
  userId: string;
  /** What proved the user before the second factor (password, invitation, password_reset, saml, a provider): the audit names both. */
  firstFactor: string;
  expiresAtMs: number;
  failures: number;
}

/**
 * Sign-ins whose first factor passed and whose second factor is still to come, held in memory (a restart
 * asks for the password again). The browser holds only a random token; this keeps its hash.
 */
export class PendingSignIns {
  readonly #pending = new Map<string, PendingSignIn>();

  begin(userId: string, firstFactor: string, now: Date): string {
    const token = newSecretToken();
    this.#pending.set(key(token), { userId, firstFactor, expiresAtMs: now.getTime() + pendingSignInMs, failures: 0 });
    if (this.#pending.size > maxPending) this.#pending.delete(this.#pending.keys().next().value!);
    return token;
  }

  /** The pending sign-in this token names, while it lasts. */
  find(token: string, now: Date): PendingSignIn | undefined {
    if (!isSecretToken(token)) return undefined;
    const pending = this.#pending.get(key(token));
    if (pending === undefined || pending.expiresAtMs <= now.getTime()) {
      this.#pending.delete(key(token));
      return undefined;
    }
    return pending;
  }

  /** Counts a wrong factor; the last allowed one ends the pending sign-in. */
  failed(token: string): void {
    const pending = this.#pending.get(key(token));
    if (pending !== undefined && ++pending.failures >= pendingSignInAttempts) this.#pending.delete(key(token));
  }

  end(token: string): void {
    this.#pending.delete(key(token));
  }
}

function key(token: string): string {
  return hashToken(token).toString('base64');
}
