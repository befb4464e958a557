import { join } from 'node:path';
import { createLogger } from '../../common/logger.js';
import type { RunningAgent } from '../../agent/start-agent.js';
import { startEmbeddedAgent, type EmbeddedAgentOptions } from '../../server/agents/embedded-agent.js';
import { createServerMetrics } from '../../server/metrics-endpoint/create-server-metrics.js';
import type { TestServer } from './test-server.js';

/**
 * The server's embedded agent on a test server, on real time, logging nothing and starting its
 * cycles without jitter unless `options` say otherwise; it stops when the test ends.
 */
export function startTestEmbeddedAgent(
  t: { teardown(fn: () => unknown): void },
  server: TestServer,
  options: Partial<Omit<EmbeddedAgentOptions, 'services'>> = {},
): RunningAgent {
  const agent = startEmbeddedAgent({
    services: server.services,
    serverMetrics: createServerMetrics(server.services, () => new Date()),
    spoolPath: join(server.stateDir, 'embedded-spool.db'),
    maxSpoolSamples: 1000,
    logger: createLogger('silent'),
    now: () => new Date(),
    random: () => 0,
    ...options,
  });
  t.teardown(() => agent.stop());
  return agent;
}
