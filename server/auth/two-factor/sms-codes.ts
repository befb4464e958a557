import { createHash, randomInt, timingSafeEqual } from 'node:crypto';

/** How long an SMS code works. */
export const smsCodeValidityMs = 10 * 60_000;
/** Wrong guesses one code takes before it ends (a new one must be sent). */
const attemptsPerCode = 5;
/** Beyond this many at once the oldest are forgotten. */
const maxCodes = 10_000;

interface IssuedCode {
  digest: Buffer;
  expiresAtMs: number;
  failures: number;
}

/**
 * One-time SMS codes, each bound to what asked for it (a phone enrollment, a pending sign-in): 6
 * digits from the CSPRNG, valid 10 minutes, used once, 5 wrong guesses end it. Held in memory as
 * digests of binding and code (a restart means sending a new one); a new code replaces the old.
 */
export class SmsCodes {
  readonly #codes = new Map<string, IssuedCode>();

  issue(binding: string, now: Date): string {
    const code = String(randomInt(1_000_000)).padStart(6, '0');
    this.#codes.delete(key(binding));
    this.#codes.set(key(binding), { digest: digest(binding, code), expiresAtMs: now.getTime() + smsCodeValidityMs, failures: 0 });
    if (this.#codes.size > maxCodes) this.#codes.delete(this.#codes.keys().next().value!);
    return code;
  }

  /** Whether `code` is the live code of this binding; a right one is spent, a wrong one counts. */
  consume(binding: string, code: string, now: Date): boolean {
    const issued = this.#codes.get(key(binding));
    if (issued === undefined || issued.expiresAtMs <= now.getTime()) {
      this.#codes.delete(key(binding));
      return false;
    }
    const typed = code.replace(/\s/g, '');
    if (/^\d{6}$/.test(typed) && timingSafeEqual(digest(binding, typed), issued.digest)) {
      this.#codes.delete(key(binding));
      return true;
    }
    if (++issued.failures >= attemptsPerCode) this.#codes.delete(key(binding));
    return false;
  }
}

function key(binding: string): string {
  return createHash('sha256').update(binding).digest('base64');
}

function digest(binding: string, code: string): Buffer {
  return createHash('sha256').update(`${binding}\n${code}`).digest();
}
