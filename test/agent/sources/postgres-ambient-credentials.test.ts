import t, { type Test } from 'tap';
import { collectionErrorCode } from '../../../agent/collection/collection-error-code.js';
import type { ConnectionSettings } from '../../../agent/sources/connection-settings.js';
import { openPostgresSession } from '../../../agent/sources/postgres-session.js';
import { PostgresSource } from '../../../agent/sources/postgres-source.js';
import { startFakePostgresServer, type FakePostgresServer } from '../../helpers/fake-postgres-server.js';
import { withProcessEnvironment } from '../../helpers/process-environment.js';
import { wildcardPgpassFile } from '../../helpers/wildcard-pgpass-file.js';

// node-postgres reads these from the process's environment, so this file sets them on its own process.
const ambientPassword = 'Zr8-ambient-PGPASSWORD-secret';
const pgpassPassword = 'Wq3-ambient-pgpass-secret';
const options = { statementTimeoutMs: 5000, connectTimeoutMs: 5000 };

async function fakeServer(t: Test): Promise<FakePostgresServer> {
  const fake = await startFakePostgresServer();
  t.teardown(() => fake.close());
  return fake;
}

const assigned = (port: number, password: string | null = null): ConnectionSettings => ({
  host: '127.0.0.1',
  port,
  database: 'app',
  username: 'monitor',
  password,
  ssl: false,
});

/** Connects the way the collection does and returns its error. */
async function collectionError(settings: ConnectionSettings): Promise<unknown> {
  const source = new PostgresSource(settings, options);
  try {
    await source.ping(AbortSignal.timeout(5000));
    return undefined;
  } catch (error) {
    return error;
  } finally {
    await source.close();
  }
}

/** Connects the way the advisor and the check command do and returns its error. */
async function sessionError(settings: ConnectionSettings): Promise<unknown> {
  try {
    const session = await openPostgresSession(settings, options);
    await session.close();
    return undefined;
  } catch (error) {
    return error;
  }
}

t.test('a server-assigned database without a stored password never gets PGPASSWORD or a pgpass entry', async (t) => {
  withProcessEnvironment(t, { PGPASSWORD: ambientPassword, PGPASSFILE: wildcardPgpassFile(t, pgpassPassword) });
  for (const [what, connect] of [
    ['the collection source', collectionError],
    ['the advisor session', sessionError],
  ] as const) {
    const fake = await fakeServer(t);
    const error = await connect(assigned(fake.port));
    t.equal(fake.startups.length, 1, `${what} did reach the fake server`);
    t.same(fake.passwords, [], `${what} sends it no password at all`);
    t.match(error, { message: /asked for a password.*none is stored/ }, `${what} says why it gave up`);
    t.equal(collectionErrorCode(error), 'authentication_failed', `${what}: last_error says authentication_failed`);
  }
});

t.test('a pgpass file alone (no PGPASSWORD) is not used for a server-assigned database either', async (t) => {
  withProcessEnvironment(t, { PGPASSFILE: wildcardPgpassFile(t, pgpassPassword), PGPASSWORD: undefined });
  for (const connect of [collectionError, sessionError]) {
    const fake = await fakeServer(t);
    await connect(assigned(fake.port));
    t.equal(fake.startups.length, 1);
    t.same(fake.passwords, []);
  }
});

t.test('PG* variables do not change whom a server-assigned database connects as, where, or how', async (t) => {
  withProcessEnvironment(t, {
    PGUSER: 'ambient_user',
    PGDATABASE: 'ambient_database',
    PGHOST: '192.0.2.1',
    PGPORT: '1',
    PGSSLMODE: 'require',
    PGSSLNEGOTIATION: 'direct',
  });
  for (const connect of [collectionError, sessionError]) {
    const fake = await fakeServer(t);
    await connect({ ...assigned(fake.port), database: '' });
    t.match(fake.startups, [{ user: 'monitor', database: 'monitor' }], 'an empty database is the user name, as PostgreSQL has it');
  }
});

t.test('the stored password of a server-assigned database is still what it sends', async (t) => {
  withProcessEnvironment(t, { PGPASSWORD: ambientPassword });
  for (const connect of [collectionError, sessionError]) {
    const fake = await fakeServer(t);
    await connect(assigned(fake.port, 'the-stored-one'));
    t.same(fake.passwords, ['the-stored-one']);
  }
});

t.test("a database of the agent's own config file keeps PGPASSWORD, as the operator chose", async (t) => {
  withProcessEnvironment(t, { PGPASSWORD: ambientPassword });
  for (const connect of [collectionError, sessionError]) {
    const fake = await fakeServer(t);
    await connect({ ...assigned(fake.port), ambientCredentials: true });
    t.same(fake.passwords, [ambientPassword]);
  }
});

t.test("a database of the agent's own config file keeps the pgpass file, as the operator chose", async (t) => {
  withProcessEnvironment(t, { PGPASSWORD: undefined, PGPASSFILE: wildcardPgpassFile(t, pgpassPassword) });
  const fake = await fakeServer(t);
  await collectionError({ ...assigned(fake.port), ambientCredentials: true });
  t.same(fake.passwords, [pgpassPassword]);
});
