import { join } from 'node:path';
import t from 'tap';
import { databaseFileName } from '../../../server/state-dir.js';
import { GenerationCache, TableGenerations, type GenerationName } from '../../../server/storage/generation-cache.js';
import { openDatabase } from '../../../server/storage/open-database.js';
import { makeSnapshot } from '../../helpers/snapshot-factory.js';
import { createServiceKey, createTenant, createUserKey, startTestServer } from '../../helpers/test-server.js';

const start = new Date('2026-11-22T12:00:00Z');
const server = await startTestServer({ now: start });
t.teardown(server.close);
// A second connection to the same file: what the operator CLI is to a running server.
const other = openDatabase(join(server.stateDir, databaseFileName));
t.teardown(() => other.close());

const generation = (name: GenerationName) =>
  server.db.prepare<[string], number>('SELECT generation FROM table_generations WHERE name = ?').pluck().get(name)!;
const moves = (name: GenerationName, write: () => unknown): boolean => {
  const before = generation(name);
  write();
  return generation(name) !== before;
};

const tenant = createTenant(server.services, start);
const databaseBody = (name: string) => ({ name, type: 'postgresql', connection: { host: 'h', database: 'd', username: 'u' } });
const createDatabase = async (name: string, key = tenant.key) =>
  (await server.request('POST', '/v1/databases', { key, body: databaseBody(name) })).body.id as string;

t.test('triggers move a counter on every write to the tables behind it, from any connection', async (t) => {
  const id = await createDatabase('counted');
  t.ok(moves('databases', () => other.prepare("UPDATE databases SET name = 'renamed' WHERE id = ?").run(id)), 'an update');
  t.notOk(moves('credentials', () => other.prepare("UPDATE databases SET name = 'again' WHERE id = ?").run(id)), 'not the other counter');
  t.ok(moves('databases', () => other.prepare('DELETE FROM databases WHERE id = ?').run(id)), 'a delete');

  const doomed = createTenant(server.services, start);
  await createDatabase('cascaded', doomed.key);
  t.ok(moves('databases', () => other.prepare('DELETE FROM organizations WHERE id = ?').run(doomed.orgId)), 'a cascade from the organization');

  const { userId } = createUserKey(server.services, tenant.orgId, start, 'member');
  t.ok(moves('credentials', () => other.prepare("UPDATE users SET role = 'viewer' WHERE id = ?").run(userId)), 'a role change');
  const keyId = server.db.prepare<[string], string>('SELECT id FROM api_keys WHERE user_id = ?').pluck().get(userId)!;
  t.notOk(moves('credentials', () => other.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?').run(start.toISOString(), keyId)), 'last_used_at alone does not');
  t.ok(moves('credentials', () => other.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ?').run(start.toISOString(), keyId)), 'a revocation');
});

t.test('a cached value lasts until its counter moves', async (t) => {
  const cache = new GenerationCache<string>(new TableGenerations(server.db), 'databases');
  let computed = 0;
  const read = () => cache.get('k', () => `value ${++computed}`);
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
  t.equal(read(), 'value 1');
  t.equal(read(), 'value 1', 'served from the cache');
  await createDatabase('invalidates');
  t.equal(read(), 'value 2', 'recomputed after a write through this connection');
  other.prepare("UPDATE databases SET name = 'from the cli' WHERE name = 'invalidates'").run();
  server.db.prepare("UPDATE databases SET name = 'own write' WHERE name = 'nothing'").run(); // matches no row
  t.equal(read(), 'value 2', 'another connection\'s commit is not read again within the turn');
  await nextTurn();
  t.equal(read(), 'value 3', 'but from the next turn on');
  other.prepare("UPDATE databases SET name = 'from the cli again' WHERE name = 'from the cli'").run();
  server.db.prepare("UPDATE databases SET name = 'own write' WHERE name = 'from the cli again'").run();
  t.equal(read(), 'value 4', 'a write through this connection is seen at once, and brings the other one along');

  const small = new GenerationCache<number>(new TableGenerations(server.db), 'databases', 2);
  let calls = 0;
  for (const key of ['a', 'b', 'c', 'a']) small.get(key, () => ++calls);
  t.equal(calls, 4, 'a full cache starts over instead of growing');
});

t.test('a value read inside a transaction that is rolled back is not served after the counter comes back to that value', async (t) => {
  const generations = new TableGenerations(server.db);
  const cache = new GenerationCache<string[]>(generations, 'databases');
  const names = () => cache.get('names', () => server.db.prepare<[], string>('SELECT name FROM databases ORDER BY name').pluck().all());
  names();
  t.throws(() =>
    server.db.transaction(() => {
      server.db.prepare("UPDATE databases SET name = 'rolled back' WHERE id = (SELECT min(id) FROM databases)").run();
      t.ok(names().includes('rolled back'), 'the transaction reads its own write');
      throw new Error('rollback');
    })(),
  );
  generations.rolledBack(); // what the services' transaction does when its work throws
  // Another write moves the counter to the value the rolled-back transaction had reached.
  other.prepare("UPDATE databases SET name = name || '' WHERE id = (SELECT min(id) FROM databases)").run();
  await new Promise((resolve) => setImmediate(resolve));
  t.notOk(names().includes('rolled back'), 'what the rollback undid is gone from the cache too');

  let computed = 0;
  server.db.transaction(() => {
    for (let i = 0; i < 3; i++) cache.get('inside', () => [String(++computed)]);
  })();
  t.equal(computed, 1, 'inside a transaction that moved nothing, the cache serves as outside one');
});

t.test('GET /v1/databases shows every change at once, whoever wrote it', async (t) => {
  const names = async () =>
    (await server.request('GET', '/v1/databases?per_page=100', { key: tenant.key })).body.data.map((d: { name: string }) => d.name) as string[];
  const id = await createDatabase('listed');
  t.ok((await names()).includes('listed'));
  await server.request('PUT', `/v1/databases/${id}`, { key: tenant.key, body: { name: 'listed-renamed' } });
  t.ok((await names()).includes('listed-renamed'), 'an update through the API');
  other.prepare("UPDATE databases SET status = 'paused' WHERE id = ?").run(id);
  const listed = (await server.request('GET', '/v1/databases?status=paused', { key: tenant.key })).body;
  t.same(listed.data.map((d: { id: string }) => d.id), [id], 'a write through another connection');
  t.equal(listed.pagination.total, 1);
  other.prepare('DELETE FROM databases WHERE id = ?').run(id);
  t.notOk((await names()).includes('listed-renamed'), 'a delete');
});

t.test("a cached page's Link header follows a database removed through another connection at once", async (t) => {
  const pager = createTenant(server.services, start);
  const ids = [];
  for (const name of ['link-a', 'link-b', 'link-c']) ids.push(await createDatabase(name, pager.key));
  const lastPage = async () => {
    const link = (await server.request('GET', '/v1/databases?per_page=1', { key: pager.key })).headers.get('link') ?? '';
    return /[?&]page=(\d+)>; rel="last"/.exec(link)?.[1];
  };
  t.equal(await lastPage(), '3');
  t.equal(await lastPage(), '3', 'the page and its Link served again');
  other.prepare('DELETE FROM databases WHERE id = ?').run(ids[2]);
  t.equal(await lastPage(), '2', 'the next request has the new last page');
});

t.test('an ingest that changes nothing on the database leaves the list cache alone', async (t) => {
  const agentKey = createServiceKey(server.services, tenant.orgId, start, { scopes: ['agent'], account: 'cache-agent' });
  const agentId: string = (await server.request('GET', '/v1/agent/assignments', { key: agentKey })).body.agent_id;
  const id = (
    await server.request('POST', '/v1/databases', { key: tenant.key, body: { ...databaseBody('ingested'), agent_id: agentId } })
  ).body.id as string;
  let batch = 0;
  const ingest = (at: Date) =>
    server.request('POST', '/v1/agent/samples', {
      key: agentKey,
      body: { batch_id: `cache-batch-${String(++batch).padStart(8, '0')}`, samples: [{ database_id: id, snapshot: makeSnapshot(at) }] },
    });
  await ingest(new Date(start.getTime() - 120_000)); // pending -> healthy, version set
  const before = generation('databases');
  await ingest(new Date(start.getTime() - 60_000));
  t.equal(generation('databases'), before, 'same version, same status: no write to databases');
});

t.test('credentials: a revocation or demotion through another connection applies to the next request', async (t) => {
  const { userId, key } = createUserKey(server.services, tenant.orgId, start, 'admin');
  t.equal((await server.request('POST', '/v1/databases', { key, body: databaseBody('by-admin') })).status, 201);
  other.prepare("UPDATE users SET role = 'viewer' WHERE id = ?").run(userId);
  const refused = await server.request('POST', '/v1/databases', { key, body: databaseBody('by-viewer') });
  t.equal(refused.status, 403, 'the demoted user cannot write');
  other.prepare('UPDATE api_keys SET revoked_at = ? WHERE user_id = ?').run(start.toISOString(), userId);
  const revoked = await server.request('GET', '/v1/databases', { key });
  t.equal(revoked.status, 401);
  t.equal(revoked.body.error.code, 'revoked_api_key');
});
