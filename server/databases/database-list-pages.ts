import type { SerializedPage } from '../http/paging.js';
import { GenerationCache } from '../storage/generation-cache.js';
import type { Db } from '../storage/open-database.js';
import { presentDatabase } from './database-presenter.js';
import type { DatabaseFilter, DatabasesRepository } from './databases-repository.js';

/**
 * Pages of the databases list as GET /v1/databases serves them, kept serialized until the
 * databases table changes: reading and presenting the rows costs several times the rest of a request.
 */
export class DatabaseListPages {
  readonly #cache;

  constructor(
    private readonly databases: DatabasesRepository,
    db: Db,
  ) {
    this.#cache = new GenerationCache<SerializedPage>(db, 'databases');
  }

  page(orgId: string, filter: DatabaseFilter, limit: number, offset: number): SerializedPage {
    const key = `${orgId} ${filter.type ?? ''} ${filter.status ?? ''} ${limit} ${offset}`;
    return this.#cache.get(key, () => {
      const { rows, total } = this.databases.list(orgId, filter, limit, offset);
      return { dataJson: JSON.stringify(rows.map(presentDatabase)), total };
    });
  }
}
