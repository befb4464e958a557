import pino from 'pino';
import { CollectionRunner } from '../../agent/collection/collection-runner.js';
import type { Collector, Pingable } from '../../agent/collection/collector.js';
import { HttpJobSource } from '../../agent/advisor/http-job-source.js';
import { JobRunner } from '../../agent/advisor/job-runner.js';
import type { Snapshot } from '../../common/agent-protocol/snapshot.js';
import { createServiceKey, createTenant, startTestServer, type Tenant, type TestServer } from './test-server.js';

export interface OptimizationFlowOptions<Source extends Pingable> {
  /** The agent's name for itself: its service account, hostname and batch ids. */
  name: string;
  type: 'postgresql' | 'mariadb';
  /** What the server stores for the agent to connect with. */
  connection: { host: string; port: number; database: string; username: string; password?: string };
  source: Source;
  collectors: readonly Collector<Source>[];
}

export interface OptimizationFlow {
  server: TestServer;
  tenant: Tenant;
  agentKey: string;
  agentHeaders: Record<string, string>;
  databaseId: string;
  /** Collects the real database and posts the snapshot as the agent; `statements` replaces the collected ones. */
  collectAndPost(statements?: unknown[]): Promise<Snapshot>;
  /** The agent's job runner, talking HTTP to the server. */
  jobs: JobRunner;
  get(optimizationId: string): Promise<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any -- response JSON
  optimize(queryId: string): Promise<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any -- response JSON
  /** Closes the source and the server; the caller drops its database. */
  close(): Promise<void>;
}

/**
 * The server and the agent's side of an optimization flow over a real database: a tenant, an
 * agent key, the database registered for that agent, one collection runner and a job runner. The
 * agent works on real time (collections, statement statistics), so the server's clock does too.
 */
export async function startOptimizationFlow<Source extends Pingable & { close(): Promise<void> }>(options: OptimizationFlowOptions<Source>): Promise<OptimizationFlow> {
  const logger = pino({ level: 'silent' });
  const server = await startTestServer();
  Object.defineProperty(server.clock, 'now', { get: () => new Date() });
  const tenant = createTenant(server.services, new Date());
  const agentKey = createServiceKey(server.services, tenant.orgId, new Date(), { scopes: ['agent'], account: `${options.name}-agent` });
  const agentHeaders = { 'user-agent': 'dbmon-agent/test', 'x-dbmon-agent-hostname': `${options.name}-host` };
  const agentId: string = (await server.request('GET', '/v1/agent/assignments', { key: agentKey, headers: agentHeaders })).body.agent_id;
  const created = await server.request('POST', '/v1/databases', {
    key: tenant.key,
    body: { name: 'shop', type: options.type, agent_id: agentId, connection: options.connection },
  });
  const databaseId: string = created.body.id;

  const collector = new CollectionRunner({ source: options.source, logger, collectors: options.collectors });
  let batches = 0;
  const collectAndPost = async (statements?: unknown[]): Promise<Snapshot> => {
    const snapshot = await collector.collect();
    const response = await server.request('POST', '/v1/agent/samples', {
      key: agentKey,
      headers: agentHeaders,
      body: {
        batch_id: `${options.name}-flow-batch-${String(++batches).padStart(8, '0')}`,
        samples: [{ database_id: databaseId, snapshot: statements === undefined ? snapshot : { ...snapshot, statements } }],
      },
    });
    if (response.body.stored !== 1) throw new Error(`sample not stored: ${response.text}`);
    return snapshot;
  };
  const jobs = new JobRunner({
    source: new HttpJobSource({ serverUrl: server.url, agentKey, version: 'test', hostname: `${options.name}-host`, timeoutMs: 30_000 }),
    logger,
  });
  return {
    server,
    tenant,
    agentKey,
    agentHeaders,
    databaseId,
    collectAndPost,
    jobs,
    get: async (id) => (await server.request('GET', `/v1/optimizations/${id}`, { key: tenant.key })).body,
    optimize: async (queryId) => {
      const response = await server.request('POST', `/v1/databases/${databaseId}/optimize`, { key: tenant.key, body: { query_id: queryId } });
      if (response.status !== 202) throw new Error(`optimize ${queryId}: ${response.status} ${response.text}`);
      return response.body;
    },
    close: async () => {
      await options.source.close();
      await server.close();
    },
  };
}
