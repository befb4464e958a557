import type { Db } from '../storage/open-database.js';

/** When monitoring of a database was last switched back on; samples from before do not count for alerts or status. */
export class MonitoringResumesRepository {
  readonly #record;
  readonly #get;

  constructor(db: Db) {
    this.#record = db.prepare<[string, number]>(
      `INSERT INTO monitoring_resumes (database_id, resumed_at) VALUES (?, ?)
       ON CONFLICT (database_id) DO UPDATE SET resumed_at = excluded.resumed_at`,
    );
    this.#get = db.prepare<[string], number>('SELECT resumed_at FROM monitoring_resumes WHERE database_id = ?').pluck();
  }

  record(databaseId: string, atMs: number): void {
    this.#record.run(databaseId, atMs);
  }

  resumedAt(databaseId: string): number | undefined {
    return this.#get.get(databaseId);
  }
}
