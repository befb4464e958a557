import type { Logger } from 'pino';
import { sampleBatchSchema } from '../../common/agent-protocol/sample-batch.js';
import { RejectedBatchError } from '../../agent/delivery/delivery-errors.js';
import { startAgent, type RunningAgent } from '../../agent/start-agent.js';
import type { Transport } from '../../agent/delivery/transport.js';
import type { ServerMetrics } from '../metrics-endpoint/server-metrics.js';
import { embeddedJobSource } from '../optimizations/embedded-job-source.js';
import type { Services } from '../services.js';

export interface EmbeddedAgentOptions {
  services: Services;
  serverMetrics: ServerMetrics;
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
  const { services, serverMetrics, now } = options;
  const sampleBatchBody = sampleBatchSchema(services.catalog);
  const transport: Transport = {
    // The agent's batch and ingest's input are one type (common/agent-protocol/); the values are
    // still checked as on the HTTP path, so both refuse the same batches.
    sendBatch: async (batch) => {
      const parsed = sampleBatchBody.safeParse(batch);
      if (!parsed.success) throw new RejectedBatchError(`invalid batch: ${parsed.error.issues[0]!.message}`, 400);
      const result = services.ingest.ingest({ kind: 'embedded' }, parsed.data, now());
      serverMetrics.recordIngest(result);
      return result;
    },
  };
  return startAgent({
    transport,
    assignments: { fetchAssignments: async () => services.agents.assignments(null) },
    spoolPath: options.spoolPath,
    maxSpoolSamples: options.maxSpoolSamples,
    logger: options.logger,
    now,
    assignmentsRefreshMs: options.assignmentsRefreshMs ?? 10_000,
    jobs: embeddedJobSource(services.optimizationJobs, now),
    jobPollIntervalMs: 5_000,
    ...(options.random && { random: options.random }),
  });
}
