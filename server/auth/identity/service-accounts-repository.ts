import type { Db } from '../../storage/open-database.js';
import type { Access } from '../permissions.js';

export interface ServiceAccount {
  id: string;
  org_id: string;
  name: string;
  permission: Access;
  created_at: string;
}

export class ServiceAccountsRepository {
  readonly #insert;
  readonly #byName;

  constructor(db: Db) {
    this.#insert = db.prepare<ServiceAccount>(
      `INSERT INTO service_accounts (id, org_id, name, permission, created_at)
       VALUES (@id, @org_id, @name, @permission, @created_at)`,
    );
    this.#byName = db.prepare<[string, string], ServiceAccount>(
      'SELECT * FROM service_accounts WHERE org_id = ? AND name = ?',
    );
  }

  insert(account: ServiceAccount): void {
    this.#insert.run(account);
  }

  findByName(orgId: string, name: string): ServiceAccount | undefined {
    return this.#byName.get(orgId, name);
  }
}
