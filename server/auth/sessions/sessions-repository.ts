import type { Db } from '../../storage/open-database.js';
import type { Plan } from '../identity/plans.js';
import type { Role } from '../permissions.js';
import type { UserStatus } from '../identity/user.js';

export interface SessionRow {
  id: string;
  user_id: string;
  token_hash: Buffer;
  csrf_token: string;
  role: Role;
  ip: string;
  user_agent: string;
  created_at: string;
  last_active_at: string;
}

export type SessionListRow = Omit<SessionRow, 'token_hash' | 'csrf_token'>;

/** The organization's session policy, read with every session so a change applies at the next request. */
export interface SessionPolicy {
  session_idle_timeout_minutes: number;
  session_max_duration_hours: number;
}

/** A session with what authenticating it needs: its user now and that user's organization. */
export interface SessionAuthRow extends SessionRow, SessionPolicy {
  org_id: string;
  user_role: Role;
  user_status: UserStatus;
  plan: Plan;
  custom_hourly_limit: number | null;
}

const listColumns = 'id, user_id, role, ip, user_agent, created_at, last_active_at';

export class SessionsRepository {
  readonly #insert;
  readonly #forAuth;
  readonly #touch;
  readonly #renew;
  readonly #ofUser;
  readonly #delete;
  readonly #deleteOfUser;
  readonly #deleteOthersOfUser;
  readonly #deleteAllOfUser;
  readonly #csrfToken;
  readonly #deleteExpired;

  constructor(db: Db) {
    this.#insert = db.prepare<SessionRow>(
      `INSERT INTO sessions (id, user_id, token_hash, csrf_token, role, ip, user_agent, created_at, last_active_at)
       VALUES (@id, @user_id, @token_hash, @csrf_token, @role, @ip, @user_agent, @created_at, @last_active_at)`,
    );
    this.#forAuth = db.prepare<[Buffer], SessionAuthRow>(
      `SELECT s.*, u.org_id, u.role AS user_role, u.status AS user_status, o.plan, o.custom_hourly_limit,
         o.session_idle_timeout_minutes, o.session_max_duration_hours
       FROM sessions s JOIN users u ON u.id = s.user_id JOIN organizations o ON o.id = u.org_id
       WHERE s.token_hash = ?`,
    );
    this.#touch = db.prepare<[string, string]>('UPDATE sessions SET last_active_at = ? WHERE id = ?');
    this.#renew = db.prepare<[Buffer, Role, string, string]>('UPDATE sessions SET token_hash = ?, role = ?, last_active_at = ? WHERE id = ?');
    this.#ofUser = db.prepare<[string], SessionListRow>(`SELECT ${listColumns} FROM sessions WHERE user_id = ? ORDER BY created_at, id`);
    this.#delete = db.prepare<[string]>('DELETE FROM sessions WHERE id = ?');
    this.#deleteOfUser = db.prepare<[string, string]>('DELETE FROM sessions WHERE id = ? AND user_id = ?');
    this.#deleteOthersOfUser = db.prepare<[string, string]>('DELETE FROM sessions WHERE user_id = ? AND id <> ?');
    this.#deleteAllOfUser = db.prepare<[string]>('DELETE FROM sessions WHERE user_id = ?');
    this.#csrfToken = db.prepare<[string], string>('SELECT csrf_token FROM sessions WHERE id = ?').pluck();
    // A deadline is written as toISOString() writes instants (strftime's %f: seconds with milliseconds), so strings compare as times.
    this.#deleteExpired = db.prepare<{ now: string; batch: number }>(
      `DELETE FROM sessions WHERE id IN (
         SELECT s.id FROM sessions s JOIN users u ON u.id = s.user_id JOIN organizations o ON o.id = u.org_id
         WHERE strftime('%Y-%m-%dT%H:%M:%fZ', s.last_active_at, '+' || o.session_idle_timeout_minutes || ' minutes') <= @now
            OR strftime('%Y-%m-%dT%H:%M:%fZ', s.created_at, '+' || o.session_max_duration_hours || ' hours') <= @now
         LIMIT @batch)`,
    );
  }

  insert(row: SessionRow): void {
    this.#insert.run(row);
  }

  findForAuth(hash: Buffer): SessionAuthRow | undefined {
    return this.#forAuth.get(hash);
  }

  touch(id: string, at: string): void {
    this.#touch.run(at, id);
  }

  /** A new secret for the same session (its public id stays), issued for `role`. */
  renew(id: string, hash: Buffer, role: Role, at: string): void {
    this.#renew.run(hash, role, at, id);
  }

  /** The user's sessions, oldest first, expired ones included. */
  ofUser(userId: string): SessionListRow[] {
    return this.#ofUser.all(userId);
  }

  /** False when there is no such session (any more). */
  delete(id: string): boolean {
    return this.#delete.run(id).changes === 1;
  }

  /** False when the user has no such session. */
  deleteOfUser(id: string, userId: string): boolean {
    return this.#deleteOfUser.run(id, userId).changes === 1;
  }

  csrfToken(id: string): string | undefined {
    return this.#csrfToken.get(id);
  }

  /** Deletes at most `batch` sessions past their organization's idle timeout or maximum duration at `now`; how many. */
  deleteExpired(now: string, batch: number): number {
    return this.#deleteExpired.run({ now, batch }).changes;
  }

  /** Every session of the user but `keepId` (null: all of them); how many ended. */
  deleteOthersOfUser(userId: string, keepId: string | null): number {
    return keepId === null ? this.#deleteAllOfUser.run(userId).changes : this.#deleteOthersOfUser.run(userId, keepId).changes;
  }
}
