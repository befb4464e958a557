import type { Db } from '../../storage/open-database.js';
import type { Plan } from './plans.js';

export interface Organization {
  id: string;
  name: string;
  slug: string;
  plan: Plan;
  custom_hourly_limit: number | null;
  created_at: string;
}

export class OrganizationsRepository {
  readonly #insert;
  readonly #byId;
  readonly #count;
  readonly #all;

  constructor(db: Db) {
    this.#insert = db.prepare<Organization>(
      `INSERT INTO organizations (id, name, slug, plan, custom_hourly_limit, created_at)
       VALUES (@id, @name, @slug, @plan, @custom_hourly_limit, @created_at)`,
    );
    this.#byId = db.prepare<[string], Organization>('SELECT * FROM organizations WHERE id = ?');
    this.#count = db.prepare<[], number>('SELECT count(*) FROM organizations').pluck();
    this.#all = db.prepare<[], Organization>('SELECT * FROM organizations ORDER BY created_at, id');
  }

  insert(organization: Organization): void {
    this.#insert.run(organization);
  }

  findById(id: string): Organization | undefined {
    return this.#byId.get(id);
  }

  all(): Organization[] {
    return this.#all.all();
  }

  count(): number {
    return this.#count.get()!;
  }
}
