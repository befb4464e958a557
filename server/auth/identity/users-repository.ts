import type { Db } from '../../storage/open-database.js';
import type { Role } from '../permissions.js';

export interface User {
  id: string;
  org_id: string;
  email: string;
  name: string;
  role: Role;
  password_hash: string | null;
  created_at: string;
}

export class UsersRepository {
  readonly #insert;
  readonly #byEmail;
  readonly #setRole;
  readonly #list;

  constructor(db: Db) {
    this.#insert = db.prepare<User>(
      `INSERT INTO users (id, org_id, email, name, role, password_hash, created_at)
       VALUES (@id, @org_id, @email, @name, @role, @password_hash, @created_at)`,
    );
    this.#byEmail = db.prepare<[string, string], User>('SELECT * FROM users WHERE org_id = ? AND email = ?');
    this.#setRole = db.prepare<[Role, string, string]>('UPDATE users SET role = ? WHERE org_id = ? AND id = ?');
    this.#list = db.prepare<{ org_id: string | null }, User>(
      'SELECT * FROM users WHERE @org_id IS NULL OR org_id = @org_id ORDER BY org_id, created_at, id',
    );
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
}
