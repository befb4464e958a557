import argon2 from 'argon2';

/**
 * argon2id with OWASP's first recommended setting, the contract's minimum: 19 MiB, 2 passes, 1 lane.
 * A hash records its parameters, so raising them later still verifies the hashes made before.
 */
export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 });
}

/**
 * Verifies a password against its hash. Without a hash (no such account, or one that never set a password)
 * it verifies against a dummy hash made with the same parameters and answers false, so the time taken
 * tells nothing about whether the account exists.
 */
export class PasswordVerifier {
  #dummyHash: Promise<string> | undefined;

  async verify(hash: string | null, password: string): Promise<boolean> {
    if (hash !== null) return argon2.verify(hash, password);
    this.#dummyHash ??= hashPassword('dbmon-dummy-password-never-matches');
    await argon2.verify(await this.#dummyHash, password);
    return false;
  }
}
