import type { Db } from '../storage/open-database.js';

export type JobKind = 'analyze' | 'apply';
/** Why the server ended a job itself: the database's connection changed after the job was made. */
export type JobCancelReason = 'connection_changed';

export interface JobRow {
  id: string;
  optimization_id: string;
  database_id: string;
  kind: JobKind;
  /** JSON: the statements to analyze, or what to apply. */
  payload: string;
  state: 'queued' | 'leased' | 'done';
  attempts: number;
  /** An agent id, or 'embedded'. */
  leased_by: string | null;
  lease_expires_ms: number | null;
  created_at: string;
  finished_at: string | null;
  cancel_reason: JobCancelReason | null;
}

export const embeddedAgent = 'embedded';

export class OptimizationJobsRepository {
  readonly #insert;
  readonly #byId;
  readonly #leasableByAgent;
  readonly #leasableByEmbedded;
  readonly #lease;
  readonly #finish;
  readonly #openFor;
  readonly #cancel;

  constructor(db: Db) {
    this.#insert = db.prepare<JobRow>(
      `INSERT INTO optimization_jobs (id, optimization_id, database_id, kind, payload, state, attempts, leased_by, lease_expires_ms, created_at, finished_at)
       VALUES (@id, @optimization_id, @database_id, @kind, @payload, @state, @attempts, @leased_by, @lease_expires_ms, @created_at, @finished_at)`,
    );
    this.#byId = db.prepare<[string], JobRow>('SELECT * FROM optimization_jobs WHERE id = ?');
    const open = `(j.state = 'queued' OR (j.state = 'leased' AND j.lease_expires_ms <= @now))`;
    // The job goes to whichever agent monitors the database now, not the one it did when it was queued.
    this.#leasableByAgent = db.prepare<{ agent_id: string; now: number; limit: number }, JobRow>(
      `SELECT j.* FROM optimization_jobs j JOIN databases d ON d.id = j.database_id
        WHERE d.agent_id = @agent_id AND ${open} ORDER BY j.created_at, j.id LIMIT @limit`,
    );
    this.#leasableByEmbedded = db.prepare<{ now: number; limit: number }, JobRow>(
      `SELECT j.* FROM optimization_jobs j JOIN databases d ON d.id = j.database_id
        WHERE d.agent_id IS NULL AND ${open} ORDER BY j.created_at, j.id LIMIT @limit`,
    );
    this.#lease = db.prepare<{ id: string; leased_by: string; lease_expires_ms: number }>(
      `UPDATE optimization_jobs SET state = 'leased', attempts = attempts + 1, leased_by = @leased_by, lease_expires_ms = @lease_expires_ms
        WHERE id = @id`,
    );
    this.#finish = db.prepare<[string, string]>("UPDATE optimization_jobs SET state = 'done', finished_at = ? WHERE id = ?");
    this.#openFor = db.prepare<[string], JobRow>(
      "SELECT * FROM optimization_jobs WHERE database_id = ? AND state IN ('queued', 'leased') ORDER BY created_at, id",
    );
    this.#cancel = db.prepare<[JobCancelReason, string, string]>(
      "UPDATE optimization_jobs SET state = 'done', cancel_reason = ?, finished_at = ? WHERE id = ?",
    );
  }

  insert(row: JobRow): void {
    this.#insert.run(row);
  }

  findById(id: string): JobRow | undefined {
    return this.#byId.get(id);
  }

  /** Queued jobs, and leased ones whose lease ran out, of the databases this agent (null: the embedded agent) monitors. */
  leasable(agentId: string | null, nowMs: number, limit: number): JobRow[] {
    return agentId === null
      ? this.#leasableByEmbedded.all({ now: nowMs, limit })
      : this.#leasableByAgent.all({ agent_id: agentId, now: nowMs, limit });
  }

  lease(id: string, leasedBy: string, leaseExpiresMs: number): void {
    this.#lease.run({ id, leased_by: leasedBy, lease_expires_ms: leaseExpiresMs });
  }

  finish(id: string, at: string): void {
    this.#finish.run(at, id);
  }

  /** Queued and leased jobs of a database, leases run out or not. */
  openFor(databaseId: string): JobRow[] {
    return this.#openFor.all(databaseId);
  }

  /** Ends a job without its result; a result still reported for it is refused with `reason`. */
  cancel(id: string, reason: JobCancelReason, at: string): void {
    this.#cancel.run(reason, at, id);
  }
}
