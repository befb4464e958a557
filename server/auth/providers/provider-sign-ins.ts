import { hashToken } from '../api-keys/api-key-token.js';
import { isSecretToken, newSecretToken } from '../../crypto/secret-token.js';
import type { ProviderKind } from './provider-kinds.js';

/** How long a browser has at the provider between leaving and coming back. */
export const providerSignInMs = 10 * 60_000;
/** Beyond this many at once the oldest are forgotten. */
const maxInFlight = 10_000;

/** What a sign-in that left for a provider must find when the browser comes back. */
export interface ProviderSignIn {
  orgId: string;
  provider: ProviderKind;
  state: string;
  codeVerifier: string;
  /** OpenID Connect providers only. */
  nonce?: string | undefined;
  /** Where to go once signed in. */
  next: string;
}

/**
 * Sign-ins that went to a provider, held in memory and bound to the browser that started them: it
 * holds only a random token in an HttpOnly cookie, this keeps the token's hash. Each is taken once,
 * so a callback replayed in the same browser finds nothing.
 */
export class ProviderSignIns {
  readonly #inFlight = new Map<string, { signIn: ProviderSignIn; expiresAtMs: number }>();

  begin(signIn: ProviderSignIn, now: Date): string {
    const token = newSecretToken();
    this.#inFlight.set(key(token), { signIn, expiresAtMs: now.getTime() + providerSignInMs });
    if (this.#inFlight.size > maxInFlight) this.#inFlight.delete(this.#inFlight.keys().next().value!);
    return token;
  }

  /** The sign-in this token names, while it lasts; it is forgotten either way. */
  take(token: string, now: Date): ProviderSignIn | undefined {
    if (!isSecretToken(token)) return undefined;
    const found = this.#inFlight.get(key(token));
    this.#inFlight.delete(key(token));
    return found === undefined || found.expiresAtMs <= now.getTime() ? undefined : found.signIn;
  }
}

function key(token: string): string {
  return hashToken(token).toString('base64');
}
