import type { Logger } from 'pino';
import { sampleBatchSchema } from '../../common/agent-protocol/sample-batch.js';
import { RejectedBatchError } from '../../agent/delivery/delivery-errors.js';
import { startAgent, type RunningAgent } from '../../agent/start-agent.js';
import type { Transport } from '../../agent/delivery/transport.js';
import type { MetricCatalog } from '../../common/metric-catalog.js';
import type { IngestCounter } from '../metrics/ingest-routes.js';
import { spoolReportOf, type IngestService, type SpoolReport } from '../metrics/ingest-service.js';
import { embeddedJobSource } from '../optimizations/embedded-job-source.js';
import type { OptimizationJobsService } from '../optimizations/optimization-jobs-service.js';
import type { AgentsService } from './agents-service.js';

/** Where the embedded agent's spool depth goes (/metrics): it has no row in `agents` for ingest to keep it in. */
export interface EmbeddedSpoolGauge {
  embeddedSpoolReported(report: SpoolReport): void;
}

export interface EmbeddedAgentOptions {
  /** Where its batches go: the metrics feature's ingest, counted as the ingest route counts them. */
  ingest: Pick<IngestService, 'ingestInSlices'>;
  counter: IngestCounter;
  spoolGauge: EmbeddedSpoolGauge;
  catalog: MetricCatalog;
  agents: Pick<AgentsService, 'assignments'>;
  jobs: OptimizationJobsService;
  spoolPath: string;
  maxSpoolSamples: number;
  logger: Logger;
  now: () => Date;
  /** In-process assignments are cheap, so a newly registered database is picked up within this. */
  assignmentsRefreshMs?: number;
  /** Source of the scheduler's start jitter. */
  random?: () => number;
}

/**
 * The same agent code as `dbmon-agent`, run inside the server for the databases registered without
 * an agent: batches still go through a spool, then straight into ingest instead of over HTTP.
 */
export function startEmbeddedAgent(options: EmbeddedAgentOptions): RunningAgent {
  const { ingest, counter, agents, now } = options;
  const sampleBatchBody = sampleBatchSchema(options.catalog);
  const transport: Transport = {
    // The agent's batch and ingest's input are one type (common/agent-protocol/); the values are
    // still checked as on the HTTP path, so both refuse the same batches.
    sendBatch: async (batch) => {
      const parsed = sampleBatchBody.safeParse(batch);
      if (!parsed.success) throw new RejectedBatchError(`invalid batch: ${parsed.error.issues[0]!.message}`, 400);
      const receivedAt = now();
      // Stated with every attempt, before ingest may fail: a backlog behind a failing ingest shows.
      const spool = spoolReportOf(parsed.data, receivedAt);
      if (spool !== undefined) options.spoolGauge.embeddedSpoolReported(spool);
      const result = await ingest.ingestInSlices({ kind: 'embedded' }, parsed.data, receivedAt);
      counter.recordIngest(result);
      return result;
    },
  };
  return startAgent({
    transport,
    assignments: { fetchAssignments: async () => agents.assignments(null) },
    spoolPath: options.spoolPath,
    maxSpoolSamples: options.maxSpoolSamples,
    logger: options.logger,
    now,
    assignmentsRefreshMs: options.assignmentsRefreshMs ?? 10_000,
    jobs: embeddedJobSource(options.jobs, now),
    jobPollIntervalMs: 5_000,
    ...(options.random && { random: options.random }),
  });
}
