import type { Logger } from 'pino';
import type { Assignments } from '../common/agent-protocol/assignments.js';
import type { Assignment, AssignmentSource } from './assignments/assignment.js';
import { AssignmentPoller } from './assignments/assignment-poller.js';
import type { AssignmentStore } from './assignments/assignment-store.js';
import type { BackoffPolicy } from './delivery/backoff.js';
import { createDatabaseCollection } from './collection/database-collection.js';
import type { PostgresSeriesLimits } from './collection/collectors/postgres/postgres-collectors.js';
import { DatabasePool, type CreateCollection, type DatabaseTask } from './collection/database-pool.js';
import { Pusher, type PusherStats } from './delivery/pusher.js';
import { JobRunner, type JobSource } from './advisor/job-runner.js';
import { cycleDeadlineMs, Scheduler, type TaskStats } from './collection/scheduler.js';
import { openSpool, type SendLimits, type SpoolStats } from './delivery/spool.js';
import type { Transport } from './delivery/transport.js';

export interface StartAgentOptions {
  /** Where batches go: HttpTransport, or an in-process transport in the server's embedded agent. */
  transport: Transport;
  /** Where the databases to collect come from; usually the same object as the transport. */
  assignments: AssignmentSource;
  /** Keeps the last assignments across restarts, so a restart while the server is down goes on collecting them. */
  assignmentStore?: AssignmentStore;
  /** The spool's SQLite file; its directory must exist. */
  spoolPath: string;
  maxSpoolSamples: number;
  logger: Logger;
  now?: () => Date;
  /** Databases configured on this host, collected even before (or without) a server assignment; they win over a server assignment of the same id. */
  localDatabases?: readonly Assignment[];
  /** Builds source and collectors of one database; tests pass fakes. */
  createCollection?: CreateCollection;
  /** How many statements and tables have series of their own; default 100 and 20. */
  postgresSeriesLimits?: PostgresSeriesLimits;
  /** Retries of deliveries and of assignment fetches. */
  backoff?: BackoffPolicy;
  assignmentsRefreshMs?: number;
  /** Cap on a cycle's deadline (otherwise 80% of its interval). */
  maxCycleDeadlineMs?: number;
  sendLimits?: SendLimits;
  /** How often a status line (spool, delivery, cycles) is logged; 0 for never. */
  statusLogIntervalMs?: number;
  random?: () => number;
  /** Where optimization jobs (analysis, apply) come from; without one the agent only collects. */
  jobs?: JobSource;
  jobPollIntervalMs?: number;
}

export interface AgentStatus {
  spool: SpoolStats;
  delivery: PusherStats;
  cycles: Record<string, TaskStats>;
}

export interface RunningAgent {
  /** Fetch the assignments now instead of at the next refresh. */
  refreshAssignments(): void;
  status(): AgentStatus;
  /** Stops fetching and scheduling, waits for running cycles (their samples are spooled), lets the send in flight finish, closes connections and the spool. */
  stop(): Promise<void>;
}

/**
 * The agent, wired: assignments → scheduler → collection → spool → pusher → transport. Takes
 * every dependency as a parameter, so `dbmon-agent` (main.ts) and the server's embedded agent
 * run the same code with different transports.
 */
export function startAgent(options: StartAgentOptions): RunningAgent {
  const { logger, transport, backoff, random } = options;
  const now = options.now ?? (() => new Date());
  const maxDeadlineMs = options.maxCycleDeadlineMs ?? 30_000;
  const deadlineMs = (intervalMs: number): number => cycleDeadlineMs(intervalMs, maxDeadlineMs);
  const spool = openSpool(options.spoolPath, { maxSamples: options.maxSpoolSamples, now });
  const createCollection: CreateCollection =
    options.createCollection ??
    ((assignment, timeoutMs) =>
      createDatabaseCollection(assignment, {
        logger: logger.child({ databaseId: assignment.id }),
        timeoutMs,
        procRoot: '/proc',
        diskPath: '/',
        ...(options.postgresSeriesLimits && { postgresSeriesLimits: options.postgresSeriesLimits }),
      }));
  const pool = new DatabasePool({ createCollection, logger, deadlineMs });
  const pusher = new Pusher({
    spool,
    transport,
    logger: logger.child({ component: 'pusher' }),
    ...(backoff && { backoff }),
    ...(options.sendLimits && { limits: options.sendLimits }),
    ...(random && { random }),
    now,
  });

  // The scheduler's signal is the cycle's one deadline; a cycle cut by it still spools what it collected in time.
  const runCycle = async (task: DatabaseTask, signal: AbortSignal): Promise<void> => {
    const snapshot = await pool.collect(task.id, now(), signal);
    if (snapshot === undefined) return;
    const { batchId, droppedSamples } = spool.append([{ database_id: task.id, snapshot }]);
    if (droppedSamples > 0) {
      logger.warn({ droppedSamples, droppedTotal: spool.droppedTotal() }, 'spool full: the oldest samples were dropped');
    }
    logger.debug({ databaseId: task.id, batchId, timestamp: snapshot.timestamp, reachable: snapshot.reachable }, 'sample spooled');
    pusher.notify();
  };
  const scheduler = new Scheduler<DatabaseTask>({
    runCycle,
    logger: logger.child({ component: 'scheduler' }),
    maxDeadlineMs,
    ...(random && { random }),
  });

  const local = options.localDatabases ?? [];
  const apply = (assigned: readonly Assignment[]): void => {
    const byId = new Map(assigned.map((database) => [database.id, database]));
    for (const database of local) byId.set(database.id, database);
    scheduler.update(pool.update([...byId.values()]));
  };
  const { assignmentStore } = options;
  const keep = (assignments: Assignments): void => {
    try {
      assignmentStore?.save(assignments);
    } catch (error) {
      logger.warn({ error: error instanceof Error ? error.message : String(error) }, 'cannot save the assignments for the next start');
    }
  };
  const poller = new AssignmentPoller({
    source: options.assignments,
    logger: logger.child({ component: 'assignments' }),
    onAssignments: (assignments: Assignments) => {
      apply(assignments.databases);
      keep(assignments);
    },
    ...(options.assignmentsRefreshMs !== undefined && { refreshMs: options.assignmentsRefreshMs }),
    ...(backoff && { backoff }),
    ...(random && { random }),
  });

  const status = (): AgentStatus => ({ spool: spool.stats(), delivery: pusher.stats(), cycles: scheduler.stats() });
  const statusEveryMs = options.statusLogIntervalMs ?? 300_000;
  const statusTimer = statusEveryMs > 0 ? setInterval(() => logger.info(status(), 'agent status'), statusEveryMs) : undefined;
  statusTimer?.unref();

  const pending = spool.stats();
  logger.info({ spoolPath: options.spoolPath, pendingBatches: pending.batches, pendingSamples: pending.samples }, 'agent started');
  const saved = assignmentStore?.load();
  if (saved !== undefined) {
    logger.info({ databases: saved.databases.length }, 'collecting the saved assignments until the server answers');
    apply(saved.databases);
  } else if (local.length > 0) apply([]);
  pusher.start();
  poller.start();
  const jobRunner =
    options.jobs === undefined
      ? undefined
      : new JobRunner({
          source: options.jobs,
          logger: logger.child({ component: 'advisor' }),
          localDatabases: local,
          ...(options.jobPollIntervalMs !== undefined && { pollIntervalMs: options.jobPollIntervalMs }),
        });
  jobRunner?.start();

  let stopping: Promise<void> | undefined;
  return {
    refreshAssignments: () => poller.refresh(),
    status,
    stop() {
      stopping ??= (async () => {
        clearInterval(statusTimer);
        await jobRunner?.stop();
        await poller.stop();
        await scheduler.stop();
        await pusher.stop();
        await pool.close();
        logger.info(status(), 'agent stopped');
        spool.close();
      })();
      return stopping;
    },
  };
}
