import { AgentsRepository } from './agents/agents-repository.js';
import { AgentsService } from './agents/agents-service.js';
import { ApiKeysRepository } from './auth/api-keys/api-keys-repository.js';
import { ApiKeysService } from './auth/api-keys/api-keys-service.js';
import { IdentityService } from './auth/identity/identity-service.js';
import { OrganizationsRepository } from './auth/identity/organizations-repository.js';
import { ServiceAccountsRepository } from './auth/identity/service-accounts-repository.js';
import { UsersRepository } from './auth/identity/users-repository.js';
import { SecretBox } from './crypto/secret-box.js';
import { DatabasesRepository } from './databases/databases-repository.js';
import { DatabasesService } from './databases/databases-service.js';
import { IngestService } from './metrics/ingest-service.js';
import { MetricsService } from './metrics/metrics-service.js';
import { RollupJob, type RetentionMs } from './metrics/rollup-job.js';
import { SamplesRepository } from './metrics/samples-repository.js';
import type { Db } from './storage/open-database.js';

export const defaultRetention: RetentionMs = {
  raw: 7 * 86_400_000,
  '1m': 30 * 86_400_000,
  '5m': 90 * 86_400_000,
  '1h': 400 * 86_400_000,
  '1d': 1825 * 86_400_000,
};

export interface Services {
  organizations: OrganizationsRepository;
  databaseRows: DatabasesRepository;
  samples: SamplesRepository;
  identity: IdentityService;
  apiKeys: ApiKeysService;
  databases: DatabasesService;
  agents: AgentsService;
  ingest: IngestService;
  metrics: MetricsService;
  rollups: RollupJob;
  /** Runs `work` in one SQLite transaction; it must not await. */
  transaction: <T>(work: () => T) => T;
}

/** Wires repositories into services over one open state database; shared by the server and the operator CLI. */
export function createServices(db: Db, secretKey: Buffer, retention: RetentionMs = defaultRetention): Services {
  const organizations = new OrganizationsRepository(db);
  const databaseRows = new DatabasesRepository(db);
  const agentRows = new AgentsRepository(db);
  const samples = new SamplesRepository(db);
  const identity = new IdentityService(organizations, new UsersRepository(db), new ServiceAccountsRepository(db));
  const databases = new DatabasesService(databaseRows, agentRows, new SecretBox(secretKey));
  const rollups = new RollupJob(db, retention);
  return {
    organizations,
    databaseRows,
    samples,
    identity,
    apiKeys: new ApiKeysService(new ApiKeysRepository(db), identity),
    databases,
    agents: new AgentsService(agentRows, databaseRows, databases),
    // One day of margin: a late sample must find the whole 1-day bucket it lands in still raw.
    ingest: new IngestService(db, samples, databaseRows, agentRows, retention.raw - 86_400_000),
    metrics: new MetricsService(samples, rollups, retention),
    rollups,
    transaction: (work) => db.transaction(work)(),
  };
}
