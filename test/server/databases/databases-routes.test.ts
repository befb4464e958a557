import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { SecretBox } from '../../../common/secret-box.js';
import { secretKeyFileName } from '../../../server/crypto/load-secret-key.js';
import { createServiceKey, createTenant, startTestServer } from '../../helpers/test-server.js';

const minimal = (name: string, type = 'postgresql') => ({
  name,
  type,
  connection: { host: 'db.internal', database: 'app', username: 'monitor' },
});

t.test('databases over HTTP', async (t) => {
  const server = await startTestServer();
  t.teardown(server.close);
  const now = server.clock.now;
  const tenant = createTenant(server.services, now);
  const other = createTenant(server.services, now);
  const post = (body: unknown, key = tenant.key) => server.request('POST', '/v1/databases', { key, body });

  await t.test('POST applies the defaults and answers 201 with Location', async (t) => {
    const pg = await post(minimal('pg-defaults'));
    t.equal(pg.status, 201);
    t.match(pg.body.id, /^db_[0-9A-Za-z]{20,}$/);
    t.equal(pg.headers.get('location'), `/v1/databases/${pg.body.id}`);
    t.same(pg.body, {
      id: pg.body.id,
      name: 'pg-defaults',
      type: 'postgresql',
      version: null,
      status: 'pending',
      agent_id: null,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
      connection: { host: 'db.internal', port: 5432, database: 'app', username: 'monitor', ssl: false, password_set: false },
      monitoring: { enabled: true, interval_seconds: 60 },
      last_error: null,
    });

    for (const type of ['mysql', 'mariadb']) {
      const created = await post(minimal(`${type}-defaults`, type));
      t.equal(created.status, 201, type);
      t.equal(created.body.connection.port, 3306, `${type} defaults to 3306`);
      t.equal(created.body.type, type);
    }

    const explicit = await post({
      name: 'explicit',
      type: 'postgresql',
      connection: { host: 'h', port: 6543, database: 'd', username: 'u', ssl: true, password: 'p' },
      monitoring: { enabled: true, interval_seconds: 10 },
    });
    t.equal(explicit.status, 201);
    t.same(explicit.body.connection, { host: 'h', port: 6543, database: 'd', username: 'u', ssl: true, password_set: true });
    t.same(explicit.body.monitoring, { enabled: true, interval_seconds: 10 });

    const got = await server.request('GET', `/v1/databases/${pg.body.id}`, { key: tenant.key });
    t.equal(got.status, 200);
    t.same(got.body, pg.body, 'GET returns the record POST returned');
  });

  await t.test('monitoring off means paused; turning it back on means pending', async (t) => {
    const paused = await post({ ...minimal('paused'), monitoring: { enabled: false } });
    t.equal(paused.status, 201);
    t.equal(paused.body.status, 'paused');
    t.same(paused.body.monitoring, { enabled: false, interval_seconds: 60 });

    const resumed = await server.request('PUT', `/v1/databases/${paused.body.id}`, {
      key: tenant.key,
      body: { monitoring: { enabled: true } },
    });
    t.equal(resumed.status, 200);
    t.equal(resumed.body.status, 'pending');
    t.equal(resumed.body.monitoring.enabled, true);

    const pausedAgain = await server.request('PUT', `/v1/databases/${paused.body.id}`, {
      key: tenant.key,
      body: { monitoring: { enabled: false } },
    });
    t.equal(pausedAgain.body.status, 'paused');
    const stored = await server.request('GET', `/v1/databases/${paused.body.id}`, { key: tenant.key });
    t.equal(stored.body.status, 'paused', 'the status change is stored');
  });

  await t.test('validation errors name the parameter', async (t) => {
    const missingCases: Array<[unknown, string]> = [
      [{ type: 'postgresql', connection: { host: 'h', database: 'd', username: 'u' } }, 'name'],
      [{ name: 'x', connection: { host: 'h', database: 'd', username: 'u' } }, 'type'],
      [{ name: 'x', type: 'postgresql' }, 'connection'],
      [{ name: 'x', type: 'postgresql', connection: { database: 'd', username: 'u' } }, 'connection.host'],
      [{ name: 'x', type: 'postgresql', connection: { host: 'h', username: 'u' } }, 'connection.database'],
      [{ name: 'x', type: 'postgresql', connection: { host: 'h', database: 'd' } }, 'connection.username'],
    ];
    for (const [body, param] of missingCases) {
      const response = await post(body);
      t.equal(response.status, 400, `missing ${param}`);
      t.equal(response.body.error.type, 'invalid_request');
      t.equal(response.body.error.code, 'missing_required_parameter', `missing ${param}`);
      t.equal(response.body.error.param, param);
    }

    const invalidCases: Array<[unknown, string]> = [
      [{ ...minimal('x'), type: 'oracle' }, 'type'],
      [{ ...minimal('x'), type: 'PostgreSQL' }, 'type'],
      [{ ...minimal('x'), name: 42 }, 'name'],
      [{ ...minimal('x'), name: '' }, 'name'],
      [{ ...minimal('x'), name: 'n'.repeat(101) }, 'name'],
      [{ ...minimal('x'), connection: { host: 'h', database: 'd', username: 'u', port: '5432' } }, 'connection.port'],
      [{ ...minimal('x'), connection: { host: 'h', database: 'd', username: 'u', port: 70000 } }, 'connection.port'],
      [{ ...minimal('x'), connection: { host: 'h', database: 'd', username: 'u', ssl: 'yes' } }, 'connection.ssl'],
      [{ ...minimal('x'), monitoring: { enabled: 'true' } }, 'monitoring.enabled'],
      [{ ...minimal('x'), monitoring: { interval_seconds: 9 } }, 'monitoring.interval_seconds'],
      [{ ...minimal('x'), monitoring: { interval_seconds: 3601 } }, 'monitoring.interval_seconds'],
      [{ ...minimal('x'), monitoring: { interval_seconds: 30.5 } }, 'monitoring.interval_seconds'],
    ];
    for (const [body, param] of invalidCases) {
      const response = await post(body);
      t.equal(response.status, 400, `invalid ${param}: ${JSON.stringify(body)}`);
      t.equal(response.body.error.code, 'invalid_parameter', `invalid ${param}`);
      t.equal(response.body.error.param, param);
    }

    for (const interval of [10, 3600]) {
      const edge = await post({ ...minimal(`edge-${interval}`), monitoring: { interval_seconds: interval } });
      t.equal(edge.status, 201, `interval ${interval} is within bounds`);
    }

    const unknownCases: Array<[unknown, string]> = [
      [{ ...minimal('x'), colour: 'blue' }, 'colour'],
      [{ ...minimal('x'), connection: { host: 'h', database: 'd', username: 'u', sslmode: 'require' } }, 'connection.sslmode'],
      [{ ...minimal('x'), monitoring: { every: 5 } }, 'monitoring.every'],
    ];
    for (const [body, param] of unknownCases) {
      const response = await post(body);
      t.equal(response.status, 400, `unknown ${param}`);
      t.equal(response.body.error.code, 'unknown_parameter');
      t.equal(response.body.error.param, param);
    }

    const created = await post(minimal('validated-put'));
    const put = (body: unknown) => server.request('PUT', `/v1/databases/${created.body.id}`, { key: tenant.key, body });
    const badInterval = await put({ monitoring: { interval_seconds: 5 } });
    t.equal(badInterval.status, 400);
    t.equal(badInterval.body.error.code, 'invalid_parameter');
    t.equal(badInterval.body.error.param, 'monitoring.interval_seconds');
    const unknownPut = await put({ connection: { sslmode: 'require' } });
    t.equal(unknownPut.body.error.code, 'unknown_parameter');
    t.equal(unknownPut.body.error.param, 'connection.sslmode');
    const unknownTop = await put({ status: 'healthy' });
    t.equal(unknownTop.body.error.code, 'unknown_parameter', 'status is not writable');
    t.equal(unknownTop.body.error.param, 'status');
    t.equal((await server.request('GET', `/v1/databases/${created.body.id}`, { key: tenant.key })).body.updated_at, created.body.updated_at, 'refused updates change nothing');

    const nothingStored = await server.request('GET', '/v1/databases?per_page=100', { key: tenant.key });
    t.notOk(nothingStored.body.data.some((record: { name: string }) => record.name === 'x'), 'no refused body was stored');
  });

  await t.test('a name is unique within an organization only', async (t) => {
    const first = await post(minimal('unique-name'));
    t.equal(first.status, 201);
    const duplicate = await post(minimal('unique-name', 'mysql'));
    t.equal(duplicate.status, 409);
    t.equal(duplicate.body.error.type, 'conflict');
    t.equal(duplicate.body.error.code, 'already_exists');
    t.equal(duplicate.body.error.param, 'name');
    const elsewhere = await post(minimal('unique-name'), other.key);
    t.equal(elsewhere.status, 201, 'another organization may use the same name');

    const second = await post(minimal('unique-name-2'));
    const rename = await server.request('PUT', `/v1/databases/${second.body.id}`, { key: tenant.key, body: { name: 'unique-name' } });
    t.equal(rename.status, 409, 'renaming onto a taken name is a conflict too');
    t.equal(rename.body.error.code, 'already_exists');
    const same = await server.request('PUT', `/v1/databases/${first.body.id}`, { key: tenant.key, body: { name: 'unique-name' } });
    t.equal(same.status, 200, 'keeping its own name is fine');
  });

  await t.test('PUT merges the given fields', async (t) => {
    const created = await post({
      name: 'merge',
      type: 'postgresql',
      connection: { host: 'old-host', database: 'd', username: 'u', password: 'first-secret', ssl: true },
      monitoring: { interval_seconds: 120 },
    });
    t.equal(created.body.connection.password_set, true);
    server.clock.now = new Date(now.getTime() + 5000);
    t.teardown(() => {
      server.clock.now = now;
    });
    const id = created.body.id;
    const put = (body: unknown) => server.request('PUT', `/v1/databases/${id}`, { key: tenant.key, body });

    const hostOnly = await put({ connection: { host: 'new-host' } });
    t.equal(hostOnly.status, 200);
    t.same(hostOnly.body.connection, { host: 'new-host', port: 5432, database: 'd', username: 'u', ssl: true, password_set: false });
    t.same(hostOnly.body.monitoring, { enabled: true, interval_seconds: 120 });
    t.equal(hostOnly.body.name, 'merge');
    t.equal(hostOnly.body.created_at, created.body.created_at);
    t.equal(hostOnly.body.updated_at, new Date(now.getTime() + 5000).toISOString());

    const empty = await put({});
    t.equal(empty.status, 200);
    t.same(empty.body.connection, hostOnly.body.connection, 'an empty body changes nothing');

    const first = await put({ connection: { password: 'first-secret' } });
    t.equal(first.body.connection.password_set, true, 'a password alone sets it');
    const cleared = await put({ connection: { password: null } });
    t.equal(cleared.body.connection.password_set, false, 'a null password clears it');
    const row = server.db.prepare('SELECT password_encrypted FROM databases WHERE id = ?').get(id) as { password_encrypted: Buffer | null };
    t.equal(row.password_encrypted, null, 'the stored ciphertext is gone');

    const stillCleared = await put({ connection: { host: 'other-host' } });
    t.equal(stillCleared.body.connection.password_set, false, 'an absent password leaves it as it is');

    const set = await put({ connection: { password: 'second-secret' } });
    t.equal(set.body.connection.password_set, true, 'a new password sets it');

    const mysql = await put({ type: 'mysql' });
    t.equal(mysql.body.type, 'mysql');
    t.equal(mysql.body.connection.port, 3306, 'a default port follows the type');
    const back = await put({ type: 'postgresql' });
    t.equal(back.body.connection.port, 5432, 'and back');

    await put({ connection: { port: 6000 } });
    const keptPort = await put({ type: 'mariadb' });
    t.equal(keptPort.body.connection.port, 6000, 'a chosen port stays when the type changes');
    const both = await put({ type: 'postgresql', connection: { port: 5433 } });
    t.equal(both.body.connection.port, 5433, 'an explicit port wins');

    const got = await server.request('GET', `/v1/databases/${id}`, { key: tenant.key });
    t.same(got.body, both.body, 'the merged record is stored');
  });

  await t.test('a change of where or as whom the agent connects clears the password unless the request gives one', async (t) => {
    const agentKey = createServiceKey(server.services, tenant.orgId, now, { scopes: ['agent'], account: 'moving-agent' });
    const agentId: string = (await server.request('GET', '/v1/agent/assignments', { key: agentKey })).body.agent_id;
    const storedPassword = (id: string) =>
      (server.db.prepare('SELECT password_encrypted FROM databases WHERE id = ?').get(id) as { password_encrypted: Buffer | null }).password_encrypted;
    const changes: Record<string, Record<string, unknown>> = {
      host: { connection: { host: 'attacker.example' } },
      port: { connection: { port: 15432 } },
      database: { connection: { database: 'other' } },
      username: { connection: { username: 'other' } },
      ssl: { connection: { ssl: false } },
      type: { type: 'mysql' },
      agent_id: { agent_id: agentId },
    };
    let index = 0;
    const register = async (body: Record<string, unknown> = {}) => {
      const created = await post({
        name: `moving-${++index}`,
        type: 'postgresql',
        connection: { host: 'db.internal', database: 'app', username: 'monitor', ssl: true, password: 'kept-secret' },
        ...body,
      });
      t.equal(created.body.connection.password_set, true);
      return created.body.id as string;
    };
    for (const [field, change] of Object.entries(changes)) {
      const id = await register();
      const moved = await server.request('PUT', `/v1/databases/${id}`, { key: tenant.key, body: change });
      t.equal(moved.status, 200, field);
      t.equal(moved.body.connection.password_set, false, `changing ${field} clears the password, and the answer says so`);
      t.equal(storedPassword(id), null, `changing ${field}: no ciphertext is left`);

      const withPassword = await register();
      const given = { ...change, connection: { ...(change.connection as object | undefined), password: 'new-secret' } };
      const replaced = await server.request('PUT', `/v1/databases/${withPassword}`, { key: tenant.key, body: given });
      t.equal(replaced.body.connection.password_set, true, `changing ${field} with a password keeps that one`);
      t.equal(server.services.databases.connectionOf(server.services.databases.get(tenant.orgId, withPassword)).password, 'new-secret');
    }

    const id = await register();
    const same = await server.request('PUT', `/v1/databases/${id}`, {
      key: tenant.key,
      body: { type: 'postgresql', connection: { host: 'db.internal', port: 5432, database: 'app', username: 'monitor', ssl: true }, agent_id: null },
    });
    t.equal(same.body.connection.password_set, true, 'the same values again move nothing');
    const renamed = await server.request('PUT', `/v1/databases/${id}`, {
      key: tenant.key,
      body: { name: 'renamed-keeps', monitoring: { enabled: false, interval_seconds: 30 } },
    });
    t.equal(renamed.body.connection.password_set, true, 'name and monitoring are not the connection');

    const handedOver = await register({ agent_id: agentId });
    const toEmbedded = await server.request('PUT', `/v1/databases/${handedOver}`, { key: tenant.key, body: { agent_id: null } });
    t.equal(toEmbedded.body.connection.password_set, false, 'moving to the embedded agent clears it too');
    const movedToAgent = await register();
    await server.request('PUT', `/v1/databases/${movedToAgent}`, { key: tenant.key, body: { agent_id: agentId } });
    const assignments = await server.request('GET', '/v1/agent/assignments', { key: agentKey });
    const assigned = assignments.body.databases.find((database: { id: string }) => database.id === movedToAgent);
    t.equal(assigned.connection.password, null, 'the agent it moved to gets no password');
  });

  await t.test('DELETE removes; unknown and malformed ids are 404', async (t) => {
    const created = await post(minimal('doomed'));
    const deleted = await server.request('DELETE', `/v1/databases/${created.body.id}`, { key: tenant.key });
    t.equal(deleted.status, 204);
    t.equal(deleted.text, '');
    const gone = await server.request('GET', `/v1/databases/${created.body.id}`, { key: tenant.key });
    t.equal(gone.status, 404);
    t.same(gone.body.error.type, 'not_found');
    t.same(gone.body.error.code, 'resource_missing');
    const again = await server.request('DELETE', `/v1/databases/${created.body.id}`, { key: tenant.key });
    t.equal(again.status, 404, 'deleting twice is 404');
    const recreated = await post(minimal('doomed'));
    t.equal(recreated.status, 201, 'the name is free again');

    const wellFormedUnknown = `db_${'A'.repeat(22)}`;
    for (const id of [wellFormedUnknown, 'nope', 'db_', 'key_abc', encodeURIComponent("db_x' OR '1'='1")]) {
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const response = await server.request(method, `/v1/databases/${id}`, { key: tenant.key, ...(method === 'PUT' && { body: { name: 'z' } }) });
        t.equal(response.status, 404, `${method} ${id}`);
        t.equal(response.body.error.type, 'not_found');
        t.equal(response.body.error.code, 'resource_missing');
      }
    }
  });

  await t.test('organizations never see each other', async (t) => {
    const theirs = await post(minimal('theirs'), other.key);
    t.equal(theirs.status, 201);
    const path = `/v1/databases/${theirs.body.id}`;
    const get = await server.request('GET', path, { key: tenant.key });
    t.equal(get.status, 404);
    t.equal(get.body.error.code, 'resource_missing');
    const put = await server.request('PUT', path, { key: tenant.key, body: { name: 'hijacked', connection: { host: 'evil' } } });
    t.equal(put.status, 404);
    const del = await server.request('DELETE', path, { key: tenant.key });
    t.equal(del.status, 404);
    const untouched = await server.request('GET', path, { key: other.key });
    t.equal(untouched.status, 200, 'still there for its owner');
    t.equal(untouched.body.name, 'theirs');
    t.equal(untouched.body.connection.host, 'db.internal');

    const mine = await server.request('GET', '/v1/databases?per_page=100', { key: tenant.key });
    t.equal(mine.status, 200);
    t.notOk(mine.body.data.some((record: { id: string }) => record.id === theirs.body.id), "A's list never shows B's");
    const theirList = await server.request('GET', '/v1/databases?per_page=100', { key: other.key });
    const mineIds = new Set(mine.body.data.map((record: { id: string }) => record.id));
    t.notOk(theirList.body.data.some((record: { id: string }) => mineIds.has(record.id)), "B's list never shows A's");
    t.equal(theirList.body.pagination.total, theirList.body.data.length);
  });

  await t.test('a password never leaves the server', async (t) => {
    const secret = 'Zq7-unmistakable-P4ssw0rd-xK9';
    const replacement = 'Wv3-second-unmistakable-Pw-8Lm';
    const responses: string[] = [];
    const created = await post({ ...minimal('secretive'), connection: { ...minimal('').connection, password: secret } });
    t.equal(created.status, 201);
    responses.push(created.text);
    const id: string = created.body.id;
    responses.push((await server.request('GET', `/v1/databases/${id}`, { key: tenant.key })).text);
    responses.push((await server.request('GET', '/v1/databases?per_page=100', { key: tenant.key })).text);
    const renamed = await server.request('PUT', `/v1/databases/${id}`, { key: tenant.key, body: { name: 'secretive-2' } });
    responses.push(renamed.text);
    const conflictWithPassword = await post({ ...minimal('secretive-2'), connection: { ...minimal('').connection, password: secret } });
    t.equal(conflictWithPassword.status, 409);
    responses.push(conflictWithPassword.text);
    const invalidWithPassword = await post({ ...minimal('bad'), connection: { ...minimal('').connection, password: secret, port: -1 } });
    t.equal(invalidWithPassword.status, 400);
    responses.push(invalidWithPassword.text);

    const stored = server.db.prepare('SELECT password_encrypted FROM databases WHERE id = ?').get(id) as { password_encrypted: Buffer };
    t.ok(Buffer.isBuffer(stored.password_encrypted));
    t.notOk(stored.password_encrypted.includes(Buffer.from(secret)), 'the row holds no plaintext');
    t.notOk(stored.password_encrypted.toString('latin1').includes(secret));
    const key = Buffer.from(readFileSync(join(server.stateDir, secretKeyFileName), 'utf8').trim(), 'hex');
    t.equal(key.length, 32);
    t.equal(new SecretBox(key).open(stored.password_encrypted, id), secret, 'it decrypts with the state key, bound to the id');
    t.throws(() => new SecretBox(key).open(stored.password_encrypted, `${id}x`), 'a ciphertext does not open for another id');

    const changed = await server.request('PUT', `/v1/databases/${id}`, { key: tenant.key, body: { connection: { password: replacement } } });
    responses.push(changed.text);
    const restored = server.db.prepare('SELECT password_encrypted FROM databases WHERE id = ?').get(id) as { password_encrypted: Buffer };
    t.equal(new SecretBox(key).open(restored.password_encrypted, id), replacement, 'a new password is stored encrypted');
    responses.push((await server.request('GET', `/v1/databases/${id}`, { key: tenant.key })).text);

    for (const [index, text] of responses.entries()) {
      t.notOk(text.includes(secret) || text.includes(replacement), `response ${index} does not carry the password`);
    }
    t.ok(server.logLines.length > 0, 'the server did log');
    const leaking = server.logLines.filter((line) => line.includes(secret) || line.includes(replacement));
    t.same(leaking, [], 'no log line carries the password');
  });

  await t.test('paging, Link header and filters', async (t) => {
    const pager = createTenant(server.services, now);
    t.teardown(() => {
      server.clock.now = now;
    });
    for (let index = 0; index < 25; index++) {
      server.clock.now = new Date(now.getTime() + index * 1000);
      const type = index % 3 === 0 ? 'mysql' : 'postgresql';
      const created = await post({ ...minimal(`page-${String(index).padStart(2, '0')}`, type), monitoring: { enabled: index % 5 !== 0 } }, pager.key);
      t.equal(created.status, 201);
    }

    const page2 = await server.request('GET', '/v1/databases?per_page=10&page=2', { key: pager.key });
    t.equal(page2.status, 200);
    t.equal(page2.body.data.length, 10);
    t.same(page2.body.pagination, { total: 25, page: 2, per_page: 10 });
    t.same(page2.body.data.map((record: { name: string }) => record.name), Array.from({ length: 10 }, (_, index) => `page-${10 + index}`), 'stable creation order');
    const link = page2.headers.get('link') ?? '';
    const rels = Object.fromEntries(
      [...link.matchAll(/<([^>]+)>; rel="(\w+)"/g)].map((match) => [match[2]!, new URL(match[1]!)]),
    );
    t.same(Object.keys(rels).sort(), ['first', 'last', 'next', 'prev']);
    t.equal(rels.next!.searchParams.get('page'), '3');
    t.equal(rels.prev!.searchParams.get('page'), '1');
    t.equal(rels.first!.searchParams.get('page'), '1');
    t.equal(rels.last!.searchParams.get('page'), '3');
    for (const url of Object.values(rels)) {
      t.equal(url.searchParams.get('per_page'), '10');
      t.equal(url.pathname, '/v1/databases');
    }
    const followed = await server.request('GET', `${rels.next!.pathname}${rels.next!.search}`, { key: pager.key });
    t.equal(followed.body.data.length, 5, 'the last page holds the rest');
    t.same(followed.body.pagination, { total: 25, page: 3, per_page: 10 });
    t.notMatch(followed.headers.get('link'), /rel="next"/, 'no next on the last page');

    const first = await server.request('GET', '/v1/databases', { key: pager.key });
    t.same(first.body.pagination, { total: 25, page: 1, per_page: 20 }, 'defaults page 1, per_page 20');
    t.equal(first.body.data.length, 20);
    t.notMatch(first.headers.get('link'), /rel="prev"/, 'no prev on the first page');

    const beyond = await server.request('GET', '/v1/databases?page=9&per_page=10', { key: pager.key });
    t.equal(beyond.status, 200);
    t.same(beyond.body.data, []);
    t.equal(beyond.body.pagination.total, 25);

    for (const [query, param] of [
      ['per_page=0', 'per_page'],
      ['per_page=101', 'per_page'],
      ['page=0', 'page'],
      ['page=abc', 'page'],
      ['page=-1', 'page'],
      ['per_page=2.5', 'per_page'],
      ['per_page=1e1', 'per_page'],
      ['per_page=0x10', 'per_page'],
      ['per_page=%2010', 'per_page'],
      ['per_page=', 'per_page'],
      ['page=1&page=2', 'page'],
      ['type=oracle', 'type'],
      ['status=sleeping', 'status'],
    ] as const) {
      const response = await server.request('GET', `/v1/databases?${query}`, { key: pager.key });
      t.equal(response.status, 400, query);
      t.equal(response.body.error.type, 'invalid_request');
      t.equal(response.body.error.code, 'invalid_parameter', query);
      t.equal(response.body.error.param, param, query);
    }
    const unknownQuery = await server.request('GET', '/v1/databases?sort=name', { key: pager.key });
    t.equal(unknownQuery.status, 400);
    t.equal(unknownQuery.body.error.code, 'unknown_parameter');
    t.equal(unknownQuery.body.error.param, 'sort');
    t.equal((await server.request('GET', '/v1/databases?per_page=100', { key: pager.key })).body.data.length, 25, 'per_page=100 is allowed');

    const mysql = await server.request('GET', '/v1/databases?type=mysql&per_page=100', { key: pager.key });
    t.equal(mysql.body.pagination.total, 9);
    t.ok(mysql.body.data.every((record: { type: string }) => record.type === 'mysql'));
    const paused = await server.request('GET', '/v1/databases?status=paused&per_page=100', { key: pager.key });
    t.equal(paused.body.pagination.total, 5);
    t.ok(paused.body.data.every((record: { status: string }) => record.status === 'paused'));
    const both = await server.request('GET', '/v1/databases?status=paused&type=mysql', { key: pager.key });
    t.same(both.body.data.map((record: { name: string }) => record.name), ['page-00', 'page-15'], 'filters combine');
    const pending = await server.request('GET', '/v1/databases?status=pending&per_page=100', { key: pager.key });
    t.equal(pending.body.pagination.total, 20);
    const filteredLink = (await server.request('GET', '/v1/databases?type=postgresql&per_page=5', { key: pager.key })).headers.get('link') ?? '';
    t.match(filteredLink, /type=postgresql/, 'links keep the filters');
  });

  await t.test('a read key lists but cannot write', async (t) => {
    const reader = createServiceKey(server.services, tenant.orgId, now, { permission: 'read', account: 'db-reader' });
    t.equal((await server.request('GET', '/v1/databases', { key: reader })).status, 200);
    const refused = await post(minimal('from-reader'), reader);
    t.equal(refused.status, 403);
    t.equal(refused.body.error.code, 'insufficient_permission');
    t.equal((await server.request('GET', '/v1/databases', {})).status, 401, 'no key, no list');
  });
});
