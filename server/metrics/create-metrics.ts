import type { MetricCatalog } from '../../common/metric-catalog.js';
import type { DatabasesService } from '../databases/databases-service.js';
import type { QueriesService } from '../queries/queries-service.js';
import type { RouteDefinition } from '../http/route.js';
import type { LoopTurns } from '../jobs/loop-turns.js';
import type { Db, Transaction } from '../storage/open-database.js';
import { ingestRoutes, type CallingAgents, type IngestCounter } from './ingest-routes.js';
import { IngestService, type CollectedDatabases, type IngestSteps, type SpoolReports } from './ingest-service.js';
import { metricsRoutes } from './metrics-routes.js';
import { MetricsService } from './metrics-service.js';
import type { RetentionMs } from './retention.js';
import { RetentionJob, type RetainedDatabases } from './retention-job.js';
import { RollupBlocks } from './rollup-blocks.js';
import { RollupJob } from './rollup-job.js';
import { RollupSealJob } from './rollup-seal-job.js';
import { SamplesRepository } from './samples-repository.js';
import { SealJob } from './seal-job.js';

export interface MetricsDependencies {
  db: Db;
  catalog: MetricCatalog;
  retention: RetentionMs;
  databases: CollectedDatabases & RetainedDatabases;
  agents: SpoolReports;
  /** Slow queries, expired with the raw samples by the retention job. */
  queries: Pick<QueriesService, 'expire'>;
  /** The ingest pipeline's steps after storing: slow queries, optimization measurement, alert evaluation. */
  steps: IngestSteps;
  transaction: Transaction;
  /** `transaction` without its fsync (storage/open-database.ts unsynced): for ingest slices and seals. */
  unsyncedTransaction: Transaction;
  /** Makes every commit so far durable, off the event loop (storage/open-database.ts walSync). */
  syncWal: () => Promise<void>;
  /** The loop's turns, shared with the background jobs: one slice a turn. */
  turns: LoopTurns;
  ingestSliceBudgetMs?: number | undefined;
}

/**
 * Samples: their ingest (the pipeline and its route), history and rollups. Its stored samples
 * serve the ports of alert evaluation and the /metrics scrape.
 */
export function createMetrics({ db, catalog, retention, databases, agents, queries, steps, transaction, unsyncedTransaction, syncWal, turns, ingestSliceBudgetMs }: MetricsDependencies) {
  const blocks = new RollupBlocks(db, catalog);
  const samples = new SamplesRepository(db, catalog, blocks);
  const rollups = new RollupJob(db, catalog, blocks);
  // One day of margin: a late sample must find the whole 1-day bucket it lands in still raw.
  const ingest = new IngestService(samples, databases, agents, steps, retention.raw - 86_400_000, transaction, unsyncedTransaction, syncWal, turns, catalog, ingestSliceBudgetMs);
  const metrics = new MetricsService(samples, retention, catalog);
  return {
    ingest,
    metrics,
    /** Background jobs: folding new samples into the rollups, sealing closed hours of raw samples and closed rollup spans into blocks, and retention of history and slow queries. */
    rollups,
    // A seal's commit need not wait for the disk: no client waits on it, and a seal lost in a crash
    // leaves the rows it would have replaced (the next synced commit or checkpoint makes it durable).
    rollupSeal: new RollupSealJob(blocks, databases, unsyncedTransaction),
    seal: new SealJob(samples, databases, unsyncedTransaction),
    retention: new RetentionJob(samples, queries, databases, retention, transaction),
    samples,
    routes: (reads: { databases: DatabasesService; agents: CallingAgents; counter: IngestCounter; now: () => Date }): RouteDefinition[] => [
      ...metricsRoutes(reads.databases, metrics, catalog, reads.now),
      ...ingestRoutes(reads.agents, ingest, reads.counter, catalog, reads.now),
    ],
  };
}
