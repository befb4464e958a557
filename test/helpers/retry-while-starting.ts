import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Retries `attempt` while the local service refuses connections: the services setup script
 * may restart PostgreSQL or MariaDB while tests begin.
 */
export async function retryWhileStarting<T>(attempt: () => Promise<T>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline || !isStartingUp(error)) throw error;
      await sleep(1000);
    }
  }
}

function isStartingUp(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return ['ECONNREFUSED', 'ECONNRESET', '57P03', 'PROTOCOL_CONNECTION_LOST'].includes(String(code));
}
