import type { Db } from '../../storage/open-database.js';

export const twoFactorMethods = ['totp', 'sms'] as const;
export type TwoFactorMethod = (typeof twoFactorMethods)[number];

export interface TwoFactorMethodRow {
  user_id: string;
  method: TwoFactorMethod;
  /** TOTP: the secret, sealed. */
  secret: Buffer | null;
  /** SMS: the number (E.164), sealed. */
  sealed_phone: Buffer | null;
  /** Null while enrollment waits for its first code. */
  confirmed_at: string | null;
  last_time_step: number | null;
  created_at: string;
}

/** A number stored before migration 0018, in the clear. */
export interface PlainPhone {
  user_id: string;
  method: TwoFactorMethod;
  phone: string;
}

export class TwoFactorRepository {
  readonly #upsert;
  readonly #ofUser;
  readonly #confirm;
  readonly #useTimeStep;
  readonly #delete;
  readonly #deleteAll;
  readonly #insertCode;
  readonly #deleteCodes;
  readonly #useCode;
  readonly #codeCount;
  readonly #plainPhones;
  readonly #sealPhone;

  constructor(private readonly db: Db) {
    this.#upsert = db.prepare<TwoFactorMethodRow>(
      `INSERT OR REPLACE INTO two_factor_methods (user_id, method, secret, sealed_phone, confirmed_at, last_time_step, created_at)
       VALUES (@user_id, @method, @secret, @sealed_phone, @confirmed_at, @last_time_step, @created_at)`,
    );
    this.#ofUser = db.prepare<[string], TwoFactorMethodRow>('SELECT * FROM two_factor_methods WHERE user_id = ? ORDER BY method');
    this.#confirm = db.prepare<[string, number | null, string, TwoFactorMethod]>(
      'UPDATE two_factor_methods SET confirmed_at = ?, last_time_step = ? WHERE user_id = ? AND method = ? AND confirmed_at IS NULL',
    );
    // The condition makes two requests racing with the same code a single use.
    this.#useTimeStep = db.prepare<[number, string, number]>(
      "UPDATE two_factor_methods SET last_time_step = ? WHERE user_id = ? AND method = 'totp' AND (last_time_step IS NULL OR last_time_step < ?)",
    );
    this.#delete = db.prepare<[string, TwoFactorMethod]>('DELETE FROM two_factor_methods WHERE user_id = ? AND method = ?');
    this.#deleteAll = db.prepare<[string]>('DELETE FROM two_factor_methods WHERE user_id = ?');
    this.#insertCode = db.prepare<[string, Buffer]>('INSERT INTO recovery_codes (user_id, code_hash) VALUES (?, ?)');
    this.#deleteCodes = db.prepare<[string]>('DELETE FROM recovery_codes WHERE user_id = ?');
    this.#useCode = db.prepare<[string, Buffer]>('DELETE FROM recovery_codes WHERE user_id = ? AND code_hash = ?');
    this.#codeCount = db.prepare<[string], number>('SELECT count(*) FROM recovery_codes WHERE user_id = ?').pluck();
    this.#plainPhones = db.prepare<[], PlainPhone>("SELECT user_id, method, sealed_phone AS phone FROM two_factor_methods WHERE typeof(sealed_phone) = 'text'");
    this.#sealPhone = db.prepare<[Buffer, string, TwoFactorMethod]>('UPDATE two_factor_methods SET sealed_phone = ? WHERE user_id = ? AND method = ?');
  }

  /**
   * Seals the phone numbers still in the clear (stored before migration 0018) in place; answers how
   * many. The bytes they leave are overwritten (secure_delete) and the write-ahead log is folded
   * into the file and emptied, so no copy of a number stays in either.
   */
  sealPlainPhones(seal: (row: PlainPhone) => Buffer): number {
    const plain = this.#plainPhones.all();
    if (plain.length === 0) return 0;
    const secureDelete = this.db.pragma('secure_delete', { simple: true }) as number;
    this.db.pragma('secure_delete = ON');
    try {
      this.db.transaction(() => {
        for (const row of plain) this.#sealPhone.run(seal(row), row.user_id, row.method);
      })();
    } finally {
      this.db.pragma(`secure_delete = ${secureDelete}`);
    }
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    return plain.length;
  }

  /** Replaces the user's method of this kind (an enrollment started again starts over). */
  save(row: TwoFactorMethodRow): void {
    this.#upsert.run(row);
  }

  ofUser(userId: string): TwoFactorMethodRow[] {
    return this.#ofUser.all(userId);
  }

  /** Marks a pending method confirmed; false when it was not pending. */
  confirm(userId: string, method: TwoFactorMethod, at: string, timeStep: number | null): boolean {
    return this.#confirm.run(at, timeStep, userId, method).changes === 1;
  }

  /** Records a TOTP step as used; false when it or a later one already was. */
  useTimeStep(userId: string, timeStep: number): boolean {
    return this.#useTimeStep.run(timeStep, userId, timeStep).changes === 1;
  }

  delete(userId: string, method: TwoFactorMethod): boolean {
    return this.#delete.run(userId, method).changes === 1;
  }

  /** Every method and recovery code of the user. */
  deleteAll(userId: string): void {
    this.#deleteAll.run(userId);
    this.#deleteCodes.run(userId);
  }

  replaceRecoveryCodes(userId: string, hashes: readonly Buffer[]): void {
    this.#deleteCodes.run(userId);
    for (const hash of hashes) this.#insertCode.run(userId, hash);
  }

  /** Spends a recovery code; false when the user has no such code (left). */
  useRecoveryCode(userId: string, hash: Buffer): boolean {
    return this.#useCode.run(userId, hash).changes === 1;
  }

  recoveryCodesLeft(userId: string): number {
    return this.#codeCount.get(userId)!;
  }
}
