import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { composeServices } from '../../server/compose-services.js';
import { databaseFileName, openStateDir } from '../../server/state-dir.js';
import { migrate } from '../../server/storage/migrate.js';
import { databaseCreateBody } from '../../server/databases/databases-schema.js';
import type { Db } from '../../server/storage/open-database.js';
import type { ServerProcess } from './spawn-server.js';
import { tempDir } from './temp-dir.js';
import { waitUntil } from './wait-until.js';

// For the tests that kill the built server (dist/) with SIGKILL in the middle of its work.

export const day = 86_400_000;

/** A state directory with an organization, an agent key and `count` databases that agent collects. */
export function preparedState(t: Parameters<typeof tempDir>[0], count: number) {
  const stateDir = tempDir(t, 'dbmon-crash-');
  const now = new Date(Date.now() - 2 * day);
  const { db, secretKey } = openStateDir(stateDir, undefined);
  migrate(db);
  const { services } = composeServices(db, secretKey, { startedAt: now });
  const organization = services.identity.createOrganization({ name: 'crash', plan: 'enterprise' }, now);
  const account = services.identity.serviceAccount(organization.id, 'agent', 'write', now);
  const agentKey = services.apiKeys.create(organization.id, { kind: 'service_account', serviceAccountId: account.id }, { name: 'agent', permission: 'write', scopes: ['agent'] }, now).value;
  const agent = services.agents.identify(services.apiKeys.authenticate(agentKey, now), { hostname: 'crash-host', version: null }, now);
  const databaseIds = Array.from({ length: count }, (_, i) => {
    const input = databaseCreateBody.parse({ name: `db-${i}`, type: 'postgresql', agent_id: agent.id, connection: { host: 'h', database: 'd', username: 'u' }, monitoring: { interval_seconds: 10 } });
    return services.databases.create(organization.id, input, now).id;
  });
  return { stateDir, db, agentKey, databaseIds };
}

/** `rows` samples of each database, 10 s apart, written as stored samples are (what the server acknowledged earlier). */
export function storeSamples(db: Db, databaseIds: string[], fromMs: number, rows: number): void {
  const insert = db.prepare('INSERT INTO samples (database_id, ts, reachable, cpu_usage, connections_active) VALUES (?, ?, 1, ?, ?)');
  db.transaction(() => {
    for (let i = 0; i < rows; i++) for (const [d, id] of databaseIds.entries()) insert.run(id, fromMs + i * 10_000, (i % 100) + d, i % 9);
  })();
}

async function jobValue(server: ServerProcess, series: string): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

/**
 * Kills the server with SIGKILL as soon as its work has got as far as `progress` says, read from its
 * state database beside it (WAL lets a reader look while the server writes): a pass is cut where
 * the test wants it, whatever the machine's speed, without waiting on a guessed delay.
 */
export async function killOnProgress(server: ServerProcess, stateDir: string, what: string, progress: (db: Db) => boolean): Promise<void> {
  const reader = new Database(join(stateDir, databaseFileName), { readonly: true });
  try {
    const deadline = Date.now() + 60_000;
    while (!progress(reader)) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await sleep(2);
    }
    server.child.kill('SIGKILL');
  } finally {
    reader.close();
  }
  await server.exited;
}

export async function passEnded(server: ServerProcess, job: string): Promise<void> {
  await waitUntil(`a ${job} pass ended`, async () => (await jobValue(server, `dbmon_job_passes_total{job="${job}",result="ok"}`)) >= 1, 60_000);
}
