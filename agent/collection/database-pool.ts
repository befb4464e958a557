import type { Logger } from 'pino';
import type { Assignment } from '../assignments/assignment.js';
import type { DatabaseCollection } from './database-collection.js';
import type { ScheduledTask } from './scheduler.js';
import type { Snapshot } from '../../common/agent-protocol/snapshot.js';

/** The scheduler's task for one assigned database. */
export interface DatabaseTask extends ScheduledTask {
  assignment: Assignment;
}

interface Slot {
  assignment: Assignment;
  collection: DatabaseCollection;
  busy: boolean;
  /** Replaced or unassigned: closed as soon as no cycle uses it, and its last snapshot is not kept. */
  retired: boolean;
}

export type CreateCollection = (assignment: Assignment, timeoutMs: number) => DatabaseCollection;

export interface DatabasePoolOptions {
  createCollection: CreateCollection;
  logger: Logger;
  /** A cycle's deadline for a given interval, as the scheduler sets it: the engine-side statement timeout. */
  deadlineMs: (intervalMs: number) => number;
}

/**
 * One collection (connection and runner) per assigned database. A new assignment list opens
 * collections for new databases, closes those no longer assigned, and rebuilds those whose
 * engine or connection changed; a collection in the middle of a cycle is closed after it.
 */
export class DatabasePool {
  readonly #slots = new Map<string, Slot>();

  constructor(private readonly options: DatabasePoolOptions) {}

  /** Applies an assignment list; returns the tasks to schedule. */
  update(assignments: readonly Assignment[]): DatabaseTask[] {
    const wanted = new Map(assignments.map((assignment) => [assignment.id, assignment]));
    for (const [id, slot] of this.#slots) {
      if (wanted.has(id)) continue;
      this.#retire(slot);
      this.#slots.delete(id);
      this.options.logger.info({ databaseId: id }, 'database no longer assigned');
    }
    for (const assignment of wanted.values()) {
      const slot = this.#slots.get(assignment.id);
      if (slot !== undefined && sameTarget(slot.assignment, assignment)) {
        slot.assignment = assignment;
        continue;
      }
      if (slot !== undefined) this.#retire(slot);
      const timeoutMs = this.options.deadlineMs(assignment.interval_seconds * 1000);
      this.#slots.set(assignment.id, {
        assignment,
        collection: this.options.createCollection(assignment, timeoutMs),
        busy: false,
        retired: false,
      });
      this.options.logger.info(
        { databaseId: assignment.id, name: assignment.name, type: assignment.type, intervalSeconds: assignment.interval_seconds },
        slot === undefined ? 'database assigned' : 'database connection changed',
      );
    }
    return [...this.#slots.values()].map(({ assignment }) => ({
      id: assignment.id,
      intervalMs: assignment.interval_seconds * 1000,
      assignment,
    }));
  }

  /** One cycle of one database, ended by `signal`; undefined when the database was unassigned or changed meanwhile. */
  async collect(databaseId: string, now: Date, signal: AbortSignal): Promise<Snapshot | undefined> {
    const slot = this.#slots.get(databaseId);
    if (slot === undefined || slot.busy) return undefined;
    slot.busy = true;
    try {
      const snapshot = await slot.collection.collect(now, signal);
      return slot.retired ? undefined : snapshot;
    } finally {
      slot.busy = false;
      if (slot.retired) await this.#close(slot);
    }
  }

  /** Closes every collection; call after the scheduler stopped, so none is busy. */
  async close(): Promise<void> {
    const slots = [...this.#slots.values()];
    this.#slots.clear();
    await Promise.all(slots.map((slot) => this.#close(slot)));
  }

  #retire(slot: Slot): void {
    slot.retired = true;
    if (!slot.busy) void this.#close(slot);
  }

  async #close(slot: Slot): Promise<void> {
    try {
      await slot.collection.close();
    } catch (error) {
      this.options.logger.warn({ error: error instanceof Error ? error.message : String(error) }, 'closing a connection failed');
    }
  }
}

function sameTarget(a: Assignment, b: Assignment): boolean {
  return a.type === b.type && a.interval_seconds === b.interval_seconds && JSON.stringify(a.connection) === JSON.stringify(b.connection);
}
