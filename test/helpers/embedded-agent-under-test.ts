import { join } from 'node:path';
import { createLogger } from '../../common/logger.js';
import type { RunningAgent } from '../../agent/start-agent.js';
import type { EmbeddedAgentRun } from '../../server/compose-server.js';
import type { TestServer } from './test-server.js';

/**
 * The server's embedded agent on a test server, on real time, logging nothing and starting its
 * cycles without jitter unless `options` say otherwise; it stops when the test ends.
 */
export function startTestEmbeddedAgent(
  t: { teardown(fn: () => unknown): void },
  server: TestServer,
  options: Partial<EmbeddedAgentRun> = {},
): RunningAgent {
  const agent = server.startEmbeddedAgent({
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
