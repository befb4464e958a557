import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import pino from 'pino';
import t from 'tap';
import { collectionErrorCode } from '../../../agent/collection/collection-error-code.js';
import { CollectionRunner } from '../../../agent/collection/collection-runner.js';
import { mysqlCollectors } from '../../../agent/collection/collectors/mysql/mysql-collectors.js';
import { postgresCollectors } from '../../../agent/collection/collectors/postgres/postgres-collectors.js';
import { MysqlSource } from '../../../agent/sources/mysql-source.js';
import { DeadlineExceededError } from '../../../agent/collection/scheduler.js';
import { PostgresSource } from '../../../agent/sources/postgres-source.js';
import { collectionRunner } from '../../helpers/collection-under-test.js';

const sourceOptions = { statementTimeoutMs: 5000, connectTimeoutMs: 5000 };
const absent = `dbmon_absent_${randomBytes(4).toString('hex')}`;

t.test('an unreachable snapshot carries the code of what the engine answered', async (t) => {
  const cases = [
    {
      what: 'PostgreSQL, a database that does not exist',
      source: new PostgresSource({ host: '127.0.0.1', port: 5432, database: absent, username: 'postgres', password: null, ssl: false }, sourceOptions),
      code: 'database_not_found',
    },
    {
      what: 'MariaDB, a user that does not exist',
      source: new MysqlSource({ host: '127.0.0.1', port: 3306, database: 'mysql', username: absent, password: 'wrong', ssl: false }, sourceOptions),
      code: 'authentication_failed',
    },
    {
      what: 'MariaDB, a database that does not exist',
      source: new MysqlSource({ host: '127.0.0.1', port: 3306, database: absent, username: 'root', password: '', ssl: false }, sourceOptions),
      code: 'database_not_found',
    },
  ];
  for (const { what, source, code } of cases) {
    t.teardown(() => source.close());
    const snapshot =
      source instanceof PostgresSource
        ? await collectionRunner(source, postgresCollectors).collect(new Date())
        : await collectionRunner(source, mysqlCollectors).collect(new Date());
    t.equal(snapshot.reachable, false, what);
    t.equal(snapshot.error_code, code, what);
  }
});

t.test('every unknown MariaDB user is an authentication failure, whichever error the server picks', async (t) => {
  // For a user that does not exist, MariaDB fakes an authentication plugin chosen from the name, so
  // about one name in four is refused with ER_ACCESS_DENIED_NO_PASSWORD_ERROR rather than 1045.
  const codes = new Set<string>();
  for (let attempt = 0; attempt < 24; attempt += 1) {
    const username = `dbmon_absent_${randomBytes(4).toString('hex')}`;
    const source = new MysqlSource({ host: '127.0.0.1', port: 3306, database: 'mysql', username, password: 'wrong', ssl: false }, sourceOptions);
    const snapshot = await collectionRunner(source, mysqlCollectors).collect(new Date());
    await source.close();
    codes.add(snapshot.error_code ?? 'none');
  }
  t.same([...codes], ['authentication_failed']);
});

t.test('a database that never answers within the deadline is a timeout', async (t) => {
  const sockets = new Set<Socket>();
  const silent = createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', () => resolve()));
  t.teardown(() => {
    for (const socket of sockets) socket.destroy();
    silent.close();
  });
  const { port } = silent.address() as AddressInfo;
  const source = new PostgresSource({ host: '127.0.0.1', port, database: 'd', username: 'u', password: null, ssl: false }, sourceOptions);
  t.teardown(() => source.close());
  const runner = new CollectionRunner({ source, collectors: postgresCollectors, logger: pino({ level: 'silent' }) });
  const deadline = new AbortController();
  setTimeout(() => deadline.abort(new DeadlineExceededError(300)), 300);
  const snapshot = await runner.collect(new Date(), deadline.signal);
  t.match(snapshot, { reachable: false, error_code: 'timeout', error: 'cycle deadline of 300 ms exceeded' });
});

t.test('an error without a known code is collection_failed', async (t) => {
  t.equal(collectionErrorCode(new Error('something else')), 'collection_failed');
  t.equal(collectionErrorCode({ code: 'ESOMETHINGNEW' }), 'collection_failed');
  t.equal(collectionErrorCode(null), 'collection_failed');
  t.equal(collectionErrorCode({ code: 'ECONNREFUSED' }), 'connection_refused');
});
