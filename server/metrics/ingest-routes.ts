import type { AgentIdentity } from '../../common/agent-protocol/identity-headers.js';
import { agentPaths } from '../../common/agent-protocol/paths.js';
import { batchAck, sampleBatchSchema, type BatchAck } from '../../common/agent-protocol/sample-batch.js';
import type { MetricCatalog } from '../../common/metric-catalog.js';
import type { AgentRow } from '../agents/agent-row.js';
import { agentAccess } from '../agents/agent-access.js';
import { identityOf } from '../agents/agents-routes.js';
import type { Principal } from '../auth/principal.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { errorResponses } from '../openapi/error-responses.js';
import type { IngestService } from './ingest-service.js';

/** The agents feature: the agent behind the calling key. */
export interface CallingAgents {
  identify(principal: Principal, identity: AgentIdentity, now: Date): AgentRow;
}

/** Counts what each batch stored (the server's /metrics). */
export interface IngestCounter {
  recordIngest(result: BatchAck): void;
}

export function ingestRoutes(
  agents: CallingAgents,
  ingest: IngestService,
  counter: IngestCounter,
  catalog: MetricCatalog,
  now: () => Date,
): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post',
      path: agentPaths.samples,
      operationId: 'ingestSamples',
      summary: 'Store a batch of snapshots; a retried batch id is stored once',
      tag: 'Agent protocol',
      auth: agentAccess('write'),
      body: sampleBatchSchema(catalog),
      compiledBody: true,
      responses: { 200: { description: 'What was stored', schema: batchAck }, ...errorResponses },
      handler: async (ctx, { body, principal }) => {
        const agent = agents.identify(principal, identityOf(ctx), now());
        const result = await ingest.ingestInSlices({ kind: 'agent', agent }, body, now());
        counter.recordIngest(result);
        ctx.body = result;
      },
    }),
  ];
}
