import t from 'tap';
import type { Assignment } from '../../../agent/assignments/assignment.js';
import { createDatabaseCollection } from '../../../agent/collection/database-collection.js';
import { createLogger } from '../../../common/logger.js';
import { freePort } from '../../helpers/batch-receiver.js';

const options = { logger: createLogger('silent'), timeoutMs: 10_000, procRoot: '/proc', diskPath: '/' };

function assignment(type: Assignment['type'], port: number, username: string): Assignment {
  return {
    id: 'db_wiring',
    name: 'wiring',
    type,
    interval_seconds: 60,
    connection: { host: '127.0.0.1', port, database: 'test', username, password: null, ssl: false },
  };
}

t.test('a PostgreSQL assignment gets the PostgreSQL collectors and the host collector', async (t) => {
  const collection = createDatabaseCollection(assignment('postgresql', 5432, 'postgres'), options);
  t.teardown(() => collection.close());
  const snapshot = await collection.collect(new Date(), AbortSignal.timeout(10_000));
  t.equal(snapshot.reachable, true, snapshot.error ?? 'reachable');
  t.match(snapshot.version, /^\d+/);
  const names = snapshot.collectors.map((collector) => collector.name);
  t.ok(names.includes('pg_stat_database') && names.includes('host'), names.join(', '));
  t.ok(snapshot.collectors.find((collector) => collector.name === 'host')?.success, 'host collector ran');
});

t.test('a MariaDB assignment gets the MySQL collectors', async (t) => {
  const collection = createDatabaseCollection(assignment('mariadb', 3306, 'root'), options);
  t.teardown(() => collection.close());
  const snapshot = await collection.collect(new Date(), AbortSignal.timeout(10_000));
  t.equal(snapshot.reachable, true, snapshot.error ?? 'reachable');
  const names = snapshot.collectors.map((collector) => collector.name);
  t.ok(names.includes('mysql_global_status') && names.includes('host'), names.join(', '));
});

t.test('an unreachable database gives an unreachable snapshot, not an error', async (t) => {
  const collection = createDatabaseCollection(assignment('postgresql', await freePort(), 'postgres'), options);
  t.teardown(() => collection.close());
  const snapshot = await collection.collect(new Date(), AbortSignal.timeout(10_000));
  t.equal(snapshot.reachable, false);
  t.ok(snapshot.error);
});
