import type { Db } from '../../storage/open-database.js';
import type { ProviderKind } from './provider-kinds.js';

/** An account at a provider linked to a user (idn_...). */
export interface UserIdentityRow {
  id: string;
  user_id: string;
  provider: ProviderKind;
  issuer: string;
  subject: string;
  email: string;
  created_at: string;
  last_used_at: string | null;
}

export class UserIdentitiesRepository {
  readonly #insert;
  readonly #bySubject;
  readonly #ofUser;
  readonly #used;
  readonly #delete;

  constructor(db: Db) {
    this.#insert = db.prepare<UserIdentityRow>(
      `INSERT INTO user_identities (id, user_id, provider, issuer, subject, email, created_at, last_used_at)
       VALUES (@id, @user_id, @provider, @issuer, @subject, @email, @created_at, @last_used_at)`,
    );
    this.#bySubject = db.prepare<[string, string, string], UserIdentityRow>('SELECT * FROM user_identities WHERE provider = ? AND issuer = ? AND subject = ?');
    this.#ofUser = db.prepare<[string], UserIdentityRow>('SELECT * FROM user_identities WHERE user_id = ? ORDER BY created_at, id');
    this.#used = db.prepare<[string, string]>('UPDATE user_identities SET last_used_at = ? WHERE id = ?');
    this.#delete = db.prepare<[string, string]>('DELETE FROM user_identities WHERE user_id = ? AND id = ?');
  }

  insert(row: UserIdentityRow): void {
    this.#insert.run(row);
  }

  findBySubject(provider: ProviderKind, issuer: string, subject: string): UserIdentityRow | undefined {
    return this.#bySubject.get(provider, issuer, subject);
  }

  ofUser(userId: string): UserIdentityRow[] {
    return this.#ofUser.all(userId);
  }

  recordUse(id: string, at: string): void {
    this.#used.run(at, id);
  }

  delete(userId: string, id: string): boolean {
    return this.#delete.run(userId, id).changes === 1;
  }
}
