import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import t from 'tap';
import { MysqlSource } from '../../../agent/sources/mysql-source.js';
import { createThrowawayMysqlDatabase } from '../../helpers/throwaway-mysql-database.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const database = await createThrowawayMysqlDatabase();
t.teardown(() => database.drop());

function heapUsedAfterGc(): number {
  gc();
  return process.memoryUsage().heapUsed;
}

t.test('the MariaDB sources of an agent with many targets hold little heap while connected', async (t) => {
  const sourceCount = 9;
  const sources = Array.from({ length: sourceCount }, () => new MysqlSource(database.settings, { statementTimeoutMs: 5000, connectTimeoutMs: 5000 }));
  t.teardown(() => Promise.all(sources.map((source) => source.close())));
  const signal = AbortSignal.timeout(30_000);
  const before = heapUsedAfterGc();
  for (const source of sources) await source.ping(signal);
  const grownMiB = (heapUsedAfterGc() - before) / 1048576;
  // mysql2's default caches are allocated at full size: 0.5 MiB for each connection's, 0.5 for the process's.
  t.ok(grownMiB < 1, `${sourceCount} connected sources grew the heap by ${grownMiB.toFixed(2)} MiB`);
});
