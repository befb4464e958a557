import t from 'tap';
import { postgresActivityCollector } from '../../../../../agent/collection/collectors/postgres/postgres-activity-collector.js';
import { collectionRunner, postgresSourceOn } from '../../../../helpers/collection-under-test.js';
import { createThrowawayPostgresDatabase } from '../../../../helpers/throwaway-postgres-database.js';
import { waitUntil } from '../../../../helpers/wait-until.js';

const database = await createThrowawayPostgresDatabase();
const source = postgresSourceOn(t, database);
const runner = collectionRunner(source, [postgresActivityCollector]);

t.test('connections.active rises by the number of sessions running a statement', async (t) => {
  const { rows } = await database.admin("SELECT current_setting('max_connections')::int AS max");
  const max = rows[0]?.max;
  await database.connect();
  const before = (await runner.collect()).metrics.connections;
  t.same(before, { active: 0, idle: 1, total: 1, max }, "one idle session; the agent's own is left out");

  const sleepers = await Promise.all([1, 2, 3].map(() => database.connect()));
  const running = sleepers.map((client) => client.query('SELECT pg_sleep(1.5)'));
  await waitUntil('three sessions in pg_sleep', async () => {
    const { rows } = await database.admin(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND query LIKE '%pg_sleep%'",
      [database.name],
    );
    return rows[0]?.n === 3;
  });
  const during = (await runner.collect()).metrics.connections;
  await Promise.all(running);

  t.equal((during.active ?? NaN) - (before.active ?? NaN), 3);
  t.same(during, { active: 3, idle: 1, total: 4, max });
});
