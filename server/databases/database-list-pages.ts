import { pageWindow, serializeList, type Paging, type SerializedList } from '../http/paging.js';
import { GenerationCache, type TableGenerations } from '../storage/generation-cache.js';
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
    generations: TableGenerations,
  ) {
    this.#cache = new GenerationCache<SerializedList>(generations, 'databases');
  }

  page(orgId: string, filter: DatabaseFilter, paging: Paging): SerializedList {
    const key = `${orgId} ${filter.type ?? ''} ${filter.status ?? ''} ${paging.per_page} ${paging.page}`;
    return this.#cache.get(key, () => {
      const { limit, offset } = pageWindow(paging);
      const { rows, total } = this.databases.list(orgId, filter, limit, offset);
      return serializeList(rows.map(presentDatabase), total, paging);
    });
  }
}
