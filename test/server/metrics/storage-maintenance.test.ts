import t from 'tap';
import { maintainMetricStorage } from '../../../server/metrics/storage-maintenance.js';
import { makeSnapshot } from '../../helpers/snapshot-factory.js';
import { createTenant, startTestServer } from '../../helpers/test-server.js';

const day = 86_400_000;

t.test('maintenance folds new samples and applies retention per resolution', async (t) => {
  const now = new Date('2026-11-22T12:00:00Z');
  const server = await startTestServer({ now });
  t.teardown(server.close);
  const tenant = createTenant(server.services, now);
  const created = await server.request('POST', '/v1/databases', {
    key: tenant.key,
    body: { name: 'm', type: 'postgresql', connection: { host: 'h', database: 'd', username: 'u' } },
  });
  const databaseId: string = created.body.id;
  const ages = [5.5 * day, 2 * day, 60_000];
  const samples = ages.map((age) => ({ database_id: databaseId, snapshot: makeSnapshot(new Date(now.getTime() - age)) }));
  t.equal(server.services.ingest.ingest({ kind: 'embedded' }, { batch_id: 'maintenance-batch-0001', samples }, now).stored, 3);

  maintainMetricStorage(server.services, now);
  const count = (sql: string) => server.db.prepare(sql).pluck().get(databaseId) as number;
  t.equal(count("SELECT count(*) FROM sample_rollups WHERE database_id = ? AND resolution = '1m'"), 3, 'every sample folded');

  // Eight days on: raw (7 d) is gone; the 1 m rollups (30 d) and the batch-id record's fate follow their own retention.
  maintainMetricStorage(server.services, new Date(now.getTime() + 8 * day));
  t.equal(count('SELECT count(*) FROM samples WHERE database_id = ?'), 0, 'raw samples past 7 days are dropped');
  t.equal(count("SELECT count(*) FROM sample_rollups WHERE database_id = ? AND resolution = '1m'"), 3, '1 m rollups are kept 30 days');
  maintainMetricStorage(server.services, new Date(now.getTime() + 31 * day));
  t.equal(count("SELECT count(*) FROM sample_rollups WHERE database_id = ? AND resolution = '1m'"), 0, '1 m rollups past 30 days are dropped');
  t.equal(count("SELECT count(*) FROM sample_rollups WHERE database_id = ? AND resolution = '1h'"), 3, '1 h rollups are kept 400 days');
  t.equal(server.db.prepare('SELECT count(*) FROM ingested_batches').pluck().get(), 0, 'batch ids expire with raw samples');
});
