import type { Db } from '../../storage/open-database.js';
import type { Role } from '../permissions.js';
import type { User, UserStatus } from './user.js';

export class UsersRepository {
  readonly #insert;
  readonly #byEmail;
  readonly #setRole;
  readonly #list;
  readonly #byId;
  readonly #bySignInEmail;
  readonly #setName;
  readonly #setPasswordHash;
  readonly #setStatus;
  readonly #signedIn;
  readonly #byIdInAnyOrganization;
  readonly #page;
  readonly #count;
  readonly #otherActiveOwners;
  readonly #delete;
  readonly #setTwoFactorEnabled;

  constructor(db: Db) {
    this.#insert = db.prepare<User>(
      `INSERT INTO users (id, org_id, email, name, role, password_hash, created_at, status)
       VALUES (@id, @org_id, @email, @name, @role, @password_hash, @created_at, @status)`,
    );
    this.#byEmail = db.prepare<[string, string], User>('SELECT * FROM users WHERE org_id = ? AND email = ?');
    this.#setRole = db.prepare<[Role, string, string]>('UPDATE users SET role = ? WHERE org_id = ? AND id = ?');
    this.#list = db.prepare<{ org_id: string | null }, User>(
      'SELECT * FROM users WHERE @org_id IS NULL OR org_id = @org_id ORDER BY org_id, created_at, id',
    );
    this.#byId = db.prepare<[string, string], User>('SELECT * FROM users WHERE org_id = ? AND id = ?');
    // Emails are unique across organizations (case-blind), so an email alone names the account signing in.
    this.#bySignInEmail = db.prepare<[string], User>('SELECT * FROM users WHERE email = ?');
    this.#setName = db.prepare<[string, string]>('UPDATE users SET name = ? WHERE id = ?');
    this.#setPasswordHash = db.prepare<[string, string]>('UPDATE users SET password_hash = ? WHERE id = ?');
    this.#setStatus = db.prepare<[UserStatus, string, string]>('UPDATE users SET status = ? WHERE org_id = ? AND id = ?');
    this.#signedIn = db.prepare<[string, string]>('UPDATE users SET last_sign_in_at = ? WHERE id = ?');
    this.#byIdInAnyOrganization = db.prepare<[string], User>('SELECT * FROM users WHERE id = ?');
    this.#page = db.prepare<[string, number, number], User>('SELECT * FROM users WHERE org_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?');
    this.#count = db.prepare<[string], number>('SELECT count(*) FROM users WHERE org_id = ?').pluck();
    this.#otherActiveOwners = db.prepare<[string, string], number>(
      "SELECT count(*) FROM users WHERE org_id = ? AND id <> ? AND role = 'owner' AND status = 'active'",
    ).pluck();
    this.#delete = db.prepare<[string, string]>('DELETE FROM users WHERE org_id = ? AND id = ?');
    this.#setTwoFactorEnabled = db.prepare<[number, string]>('UPDATE users SET two_factor_enabled = ? WHERE id = ?');
  }

  insert(user: User): void {
    this.#insert.run(user);
  }

  findByEmail(orgId: string, email: string): User | undefined {
    return this.#byEmail.get(orgId, email);
  }

  /** The users of one organization, or of all of them (null). */
  list(orgId: string | null): User[] {
    return this.#list.all({ org_id: orgId });
  }

  setRole(orgId: string, userId: string, role: Role): boolean {
    return this.#setRole.run(role, orgId, userId).changes === 1;
  }

  findById(orgId: string, id: string): User | undefined {
    return this.#byId.get(orgId, id);
  }

  findForSignIn(email: string): User | undefined {
    return this.#bySignInEmail.get(email);
  }

  setName(id: string, name: string): void {
    this.#setName.run(name, id);
  }

  setPasswordHash(id: string, hash: string): void {
    this.#setPasswordHash.run(hash, id);
  }

  setStatus(orgId: string, id: string, status: UserStatus): boolean {
    return this.#setStatus.run(status, orgId, id).changes === 1;
  }

  recordSignIn(id: string, at: string): void {
    this.#signedIn.run(at, id);
  }

  /** A user named by a one-time link, which knows no organization. */
  findByIdInAnyOrganization(id: string): User | undefined {
    return this.#byIdInAnyOrganization.get(id);
  }

  /** One page of the organization's users, oldest first, and how many there are. */
  page(orgId: string, limit: number, offset: number): { rows: User[]; total: number } {
    return { rows: this.#page.all(orgId, limit, offset), total: this.#count.get(orgId)! };
  }

  /** Active owners of the organization other than `userId`. */
  otherActiveOwners(orgId: string, userId: string): number {
    return this.#otherActiveOwners.get(orgId, userId)!;
  }

  setTwoFactorEnabled(id: string, enabled: boolean): void {
    this.#setTwoFactorEnabled.run(Number(enabled), id);
  }

  /** Removes the user; their sessions, keys and links go with them (foreign keys cascade). */
  delete(orgId: string, id: string): boolean {
    return this.#delete.run(orgId, id).changes === 1;
  }
}
