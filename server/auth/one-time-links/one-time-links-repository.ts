import type { Db } from '../../storage/open-database.js';

import type { LinkPurpose } from './link-purpose.js';

export interface OneTimeLinkRow {
  token_hash: Buffer;
  purpose: LinkPurpose;
  user_id: string;
  created_at: string;
  expires_at: string;
}

export class OneTimeLinksRepository {
  readonly #insert;
  readonly #deletePurposeOfUser;
  readonly #deleteAllOfUser;
  readonly #deleteExpired;
  readonly #live;
  readonly #consume;

  constructor(db: Db) {
    this.#insert = db.prepare<OneTimeLinkRow>(
      `INSERT INTO one_time_links (token_hash, purpose, user_id, created_at, expires_at)
       VALUES (@token_hash, @purpose, @user_id, @created_at, @expires_at)`,
    );
    this.#deletePurposeOfUser = db.prepare<[string, LinkPurpose]>('DELETE FROM one_time_links WHERE user_id = ? AND purpose = ?');
    this.#deleteAllOfUser = db.prepare<[string]>('DELETE FROM one_time_links WHERE user_id = ?');
    this.#deleteExpired = db.prepare<[string]>('DELETE FROM one_time_links WHERE expires_at <= ?');
    // ISO-8601 UTC strings of one width compare as the instants they name.
    this.#live = db.prepare<[Buffer, LinkPurpose, string], string>(
      'SELECT user_id FROM one_time_links WHERE token_hash = ? AND purpose = ? AND expires_at > ?',
    ).pluck();
    this.#consume = db.prepare<[Buffer, LinkPurpose, string], string>(
      'DELETE FROM one_time_links WHERE token_hash = ? AND purpose = ? AND expires_at > ? RETURNING user_id',
    ).pluck();
  }

  /** Stores the link in place of the user's earlier ones of the same purpose; expired links of anyone go too. */
  replace(row: OneTimeLinkRow): void {
    this.#deleteExpired.run(row.created_at);
    this.#deletePurposeOfUser.run(row.user_id, row.purpose);
    this.#insert.run(row);
  }

  /** The user a live link names, leaving the link in place. */
  liveUser(hash: Buffer, purpose: LinkPurpose, now: string): string | undefined {
    return this.#live.get(hash, purpose, now);
  }

  /** Deletes a live link and gives its user: of two uses at once, only one gets it. */
  consume(hash: Buffer, purpose: LinkPurpose, now: string): string | undefined {
    return this.#consume.get(hash, purpose, now);
  }

  deleteOfUser(userId: string): void {
    this.#deleteAllOfUser.run(userId);
  }
}
