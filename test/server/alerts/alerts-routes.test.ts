import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { CollectionRunner } from '../../../agent/collection/collection-runner.js';
import { postgresCollectors } from '../../../agent/collection/collectors/postgres/postgres-collectors.js';
import { PostgresSource } from '../../../agent/sources/postgres-source.js';
import pino from 'pino';
import { isId } from '../../../server/crypto/new-id.js';
import { migrate, readMigrations } from '../../../server/storage/migrate.js';
import { makeSnapshot } from '../../helpers/snapshot-factory.js';
import { createServiceKey, createTenant, createUserKey, startTestServer, type TestServer } from '../../helpers/test-server.js';

type Metrics = NonNullable<Parameters<typeof makeSnapshot>[1]>['metrics'];

let batchNumber = 0;

/** Stores one snapshot through the embedded agent's ingest path at the server's clock, then moves the clock on. */
function ingestAt(server: TestServer, databaseId: string, overrides: Parameters<typeof makeSnapshot>[1] = {}, stepMs = 10_000) {
  const snapshot = makeSnapshot(server.clock.now, overrides);
  const result = server.services.ingest.ingest(
    { kind: 'embedded' },
    { batch_id: `alerts-batch-${String(++batchNumber).padStart(6, '0')}`, samples: [{ database_id: databaseId, snapshot }] },
    server.clock.now,
  );
  server.clock.now = new Date(server.clock.now.getTime() + stepMs);
  return result;
}

const active = (n: number): Metrics => ({ connections: { active: n, idle: 0, total: n, max: 100 } });

function eventsOf(server: TestServer, type: string): { data: { object: Record<string, unknown>; previous_attributes?: { status: string } } }[] {
  return (server.db.prepare('SELECT payload FROM events WHERE type = ? ORDER BY created_at, rowid').pluck().all(type) as string[]).map((payload) =>
    JSON.parse(payload),
  );
}

t.test('alert rules and alerts over HTTP', async (t) => {
  const server = await startTestServer({ now: new Date('2026-11-22T10:00:00Z') });
  t.teardown(server.close);
  const tenant = createTenant(server.services, server.clock.now);
  const key = tenant.key;
  const createDatabase = async (name: string, extra: Record<string, unknown> = {}) => {
    const response = await server.request('POST', '/v1/databases', {
      key,
      body: { name, type: 'postgresql', connection: { host: '127.0.0.1', database: 'd', username: 'u' }, monitoring: { interval_seconds: 10 }, ...extra },
    });
    t.equal(response.status, 201, response.text);
    return response.body.id as string;
  };

  await t.test('a new organization starts with the three stock rules', async (t) => {
    const response = await server.request('GET', '/v1/alerts/rules', { key });
    t.equal(response.status, 200);
    t.equal(response.body.pagination.total, 3);
    t.same(
      response.body.data
        .map((rule: Record<string, unknown>) => [rule.metric, rule.operator, rule.threshold, rule.duration_seconds, rule.severity, rule.database_id, rule.enabled])
        .sort(),
      [
        ['connections.used_pct', '>', 90, 300, 'warning', null, true],
        ['disk_usage', '>', 90, 300, 'warning', null, true],
        ['reachable', '==', 0, 120, 'critical', null, true],
      ],
    );
    t.ok(response.body.data.every((rule: { id: string }) => isId('rule', rule.id)));
  });

  const databaseId = await createDatabase('orders');

  await t.test('rule CRUD', async (t) => {
    const created = await server.request('POST', '/v1/alerts/rules', {
      key,
      body: { name: 'many connections', metric: 'connections.active', operator: '>', threshold: 50 },
    });
    t.equal(created.status, 201, created.text);
    t.equal(created.headers.get('location'), `/v1/alerts/rules/${created.body.id}`);
    t.same(created.body, {
      id: created.body.id,
      name: 'many connections',
      database_id: null,
      metric: 'connections.active',
      operator: '>',
      threshold: 50,
      duration_seconds: 0,
      severity: 'warning',
      enabled: true,
      created_at: server.clock.now.toISOString(),
      updated_at: server.clock.now.toISOString(),
    });
    const id = created.body.id as string;
    const got = await server.request('GET', `/v1/alerts/rules/${id}`, { key });
    t.same(got.body, created.body);
    const updated = await server.request('PUT', `/v1/alerts/rules/${id}`, { key, body: { threshold: 60, database_id: databaseId, severity: 'critical' } });
    t.equal(updated.status, 200, updated.text);
    t.match(updated.body, { threshold: 60, database_id: databaseId, severity: 'critical', name: 'many connections', operator: '>' });
    const bound = await server.request('GET', `/v1/alerts/rules?database_id=${databaseId}`, { key });
    t.same(bound.body.data.map((rule: { id: string }) => rule.id), [id], 'filter by database');
    const paged = await server.request('GET', '/v1/alerts/rules?per_page=2&page=2', { key });
    t.equal(paged.body.data.length, 2);
    t.equal(paged.body.pagination.total, 4);
    t.match(paged.headers.get('link'), /rel="prev"/);
    const deleted = await server.request('DELETE', `/v1/alerts/rules/${id}`, { key });
    t.equal(deleted.status, 204);
    t.equal((await server.request('GET', `/v1/alerts/rules/${id}`, { key })).status, 404);
    t.equal((await server.request('DELETE', `/v1/alerts/rules/${id}`, { key })).status, 404);
    t.equal((await server.request('GET', '/v1/alerts/rules/rule_malformed', { key })).status, 404);
  });

  await t.test('rule validation errors', async (t) => {
    const valid = { name: 'r', metric: 'cpu_usage', operator: '>', threshold: 1 };
    const cases: [Record<string, unknown>, number, string, string][] = [
      [{ ...valid, name: undefined }, 400, 'missing_required_parameter', 'name'],
      [{ ...valid, metric: undefined }, 400, 'missing_required_parameter', 'metric'],
      [{ ...valid, metric: 'status', operator: '==' }, 400, 'invalid_parameter', 'threshold'],
      [{ ...valid, metric: 'status', threshold: 'warning' }, 400, 'invalid_parameter', 'operator'],
      [{ ...valid, metric: 'status', operator: '!=', threshold: 'sleepy' }, 400, 'invalid_parameter', 'threshold'],
      [{ ...valid, threshold: 'warning' }, 400, 'invalid_parameter', 'threshold'],
      [{ ...valid, metric: 'connections.bogus' }, 400, 'invalid_parameter', 'metric'],
      [{ ...valid, operator: '=>' }, 400, 'invalid_parameter', 'operator'],
      [{ ...valid, threshold: '5' }, 400, 'invalid_parameter', 'threshold'],
      [{ ...valid, duration_seconds: -1 }, 400, 'invalid_parameter', 'duration_seconds'],
      [{ ...valid, duration_seconds: 1.5 }, 400, 'invalid_parameter', 'duration_seconds'],
      [{ ...valid, severity: 'fatal' }, 400, 'invalid_parameter', 'severity'],
      [{ ...valid, database_id: 'db_doesnotexist0000000000' }, 400, 'invalid_parameter', 'database_id'],
      [{ ...valid, colour: 'red' }, 400, 'unknown_parameter', 'colour'],
    ];
    for (const [body, status, code, param] of cases) {
      const response = await server.request('POST', '/v1/alerts/rules', { key, body });
      t.equal(response.status, status, `${JSON.stringify(body)}: ${response.text}`);
      t.equal(response.body.error.code, code);
      t.equal(response.body.error.param, param);
    }
    const other = createTenant(server.services, server.clock.now);
    const foreign = await server.request('POST', '/v1/alerts/rules', { key: other.key, body: { ...valid, database_id: databaseId } });
    t.equal(foreign.status, 400, 'another organization\'s database');
    t.equal((await server.request('GET', `/v1/alerts/rules/${(await server.request('GET', '/v1/alerts/rules', { key })).body.data[0].id}`, { key: other.key })).status, 404);
    const readKey = createServiceKey(server.services, tenant.orgId, server.clock.now, { permission: 'read', account: 'reader' });
    t.equal((await server.request('POST', '/v1/alerts/rules', { key: readKey, body: valid })).status, 403);
    t.equal((await server.request('GET', '/v1/alerts/rules', { key: readKey })).status, 200);
    const noScope = createServiceKey(server.services, tenant.orgId, server.clock.now, { scopes: ['databases'], account: 'db-only' });
    t.equal((await server.request('GET', '/v1/alerts', { key: noScope })).status, 403);
  });

  let ruleId = '';
  let firstAlertId = '';

  await t.test('a rule fires after its duration, sets the status, and an alert can be read and filtered', async (t) => {
    const rule = await server.request('POST', '/v1/alerts/rules', {
      key,
      body: { name: 'busy', database_id: databaseId, metric: 'connections.active', operator: '>', threshold: 10, duration_seconds: 20 },
    });
    ruleId = rule.body.id;
    ingestAt(server, databaseId, { metrics: active(1) });
    t.equal((await server.request('GET', `/v1/databases/${databaseId}`, { key })).body.status, 'healthy');
    ingestAt(server, databaseId, { metrics: active(20) });
    ingestAt(server, databaseId, { metrics: active(20) });
    t.equal((await server.request('GET', '/v1/alerts', { key })).body.data.length, 0, 'held for 10 s of 20');
    ingestAt(server, databaseId, { metrics: active(20) });
    const list = await server.request('GET', '/v1/alerts', { key });
    t.equal(list.body.data.length, 1, 'held for 20 s');
    const alert = list.body.data[0];
    firstAlertId = alert.id;
    t.ok(isId('alert', alert.id));
    t.match(alert, {
      rule_id: ruleId,
      database_id: databaseId,
      severity: 'warning',
      status: 'active',
      metric: 'connections.active',
      operator: '>',
      value: 20,
      threshold: 10,
      message: 'busy: connections.active is 20 (> 10 for 20 s)',
      resolved_at: null,
      resolved_by: null,
    });
    t.same((await server.request('GET', `/v1/alerts/${alert.id}`, { key })).body, alert);
    t.equal((await server.request('GET', `/v1/databases/${databaseId}`, { key })).body.status, 'warning');
    ingestAt(server, databaseId, { metrics: active(30) });
    t.equal((await server.request('GET', '/v1/alerts?status=all', { key })).body.data.length, 1, 'still one alert');
    t.equal((await server.request('GET', '/v1/alerts?severity=critical', { key })).body.data.length, 0);
    t.equal((await server.request('GET', '/v1/alerts?severity=warning', { key })).body.data.length, 1);
    t.equal((await server.request('GET', `/v1/alerts?database_id=${databaseId}`, { key })).body.data.length, 1);
    t.equal((await server.request('GET', '/v1/alerts?database_id=db_other', { key })).body.data.length, 0);
    t.equal((await server.request('GET', '/v1/alerts?status=resolved', { key })).body.data.length, 0);
    t.equal((await server.request('GET', '/v1/alerts?status=bogus', { key })).status, 400);
    t.equal((await server.request('GET', '/v1/alerts/alert_doesnotexist00000000000', { key })).status, 404);
    const triggered = eventsOf(server, 'alert.triggered');
    t.equal(triggered.length, 1);
    t.same(triggered[0]!.data.object, alert, 'the event carries the alert record');
    const statusChanges = eventsOf(server, 'database.status_changed').map((event) => [event.data.previous_attributes?.status, event.data.object.status]);
    t.same(statusChanges, [['pending', 'healthy'], ['healthy', 'warning']]);
  });

  await t.test('manual resolve: 200 once, then 409; no new alert until the condition cleared once', async (t) => {
    const resolved = await server.request('PATCH', `/v1/alerts/${firstAlertId}/resolve`, { key, body: { note: 'known, load test' } });
    t.equal(resolved.status, 200, resolved.text);
    t.equal(resolved.body.status, 'resolved');
    t.equal(resolved.body.resolution_note, 'known, load test');
    t.equal(resolved.body.resolved_at, server.clock.now.toISOString());
    const keyId = server.services.apiKeys.authenticate(key, server.clock.now).credential.id;
    t.match(keyId, /^key_/);
    t.equal(resolved.body.resolved_by, keyId, 'a service-account key resolves as its key id');
    const again = await server.request('PATCH', `/v1/alerts/${firstAlertId}/resolve`, { key });
    t.equal(again.status, 409);
    t.equal(again.body.error.type, 'conflict');
    t.equal(again.body.error.code, 'already_resolved');
    t.equal((await server.request('PATCH', '/v1/alerts/alert_doesnotexist00000000000/resolve', { key })).status, 404);
    t.equal((await server.request('GET', `/v1/databases/${databaseId}`, { key })).body.status, 'healthy', 'the status follows');
    for (let i = 0; i < 6; i++) ingestAt(server, databaseId, { metrics: active(30) });
    t.equal((await server.request('GET', '/v1/alerts', { key })).body.data.length, 0, 'the condition still holds but never cleared: quiet');
    ingestAt(server, databaseId, { metrics: active(1) });
    for (let i = 0; i < 3; i++) ingestAt(server, databaseId, { metrics: active(30) });
    const refired = await server.request('GET', '/v1/alerts', { key });
    t.equal(refired.body.data.length, 1, 'cleared once, then held again: a new alert');
    t.not(refired.body.data[0].id, firstAlertId);
    t.same(eventsOf(server, 'alert.resolved').map((event) => event.data.object.id), [firstAlertId]);
  });

  await t.test('the condition clears: the alert resolves by itself after the hold, with hysteresis', async (t) => {
    ingestAt(server, databaseId, { metrics: active(10) });
    ingestAt(server, databaseId, { metrics: active(10) });
    ingestAt(server, databaseId, { metrics: active(10) });
    t.equal((await server.request('GET', '/v1/alerts', { key })).body.data.length, 1, '10 is not past the margin (9.5)');
    ingestAt(server, databaseId, { metrics: active(2) });
    ingestAt(server, databaseId, { metrics: active(2) });
    t.equal((await server.request('GET', '/v1/alerts', { key })).body.data.length, 1, 'clear for 10 s of 20');
    ingestAt(server, databaseId, { metrics: active(2) });
    const all = await server.request('GET', '/v1/alerts?status=resolved', { key });
    t.equal(all.body.data.length, 2);
    t.match(all.body.data[0], { status: 'resolved', resolved_by: 'auto', resolution_note: null });
    t.equal((await server.request('GET', `/v1/databases/${databaseId}`, { key })).body.status, 'healthy');
  });

  await t.test('flapping values around the threshold give at most one alert', async (t) => {
    const flappy = await createDatabase('flappy');
    await server.request('POST', '/v1/alerts/rules', {
      key,
      body: { name: 'cpu', database_id: flappy, metric: 'cpu_usage', operator: '>=', threshold: 50, duration_seconds: 0, severity: 'critical' },
    });
    for (let i = 0; i < 30; i++) ingestAt(server, flappy, { metrics: { cpu_usage: i % 2 === 0 ? 50.5 : 49.5 } });
    const alerts = await server.request('GET', `/v1/alerts?status=all&database_id=${flappy}`, { key });
    t.equal(alerts.body.data.length, 1);
    t.equal((await server.request('GET', `/v1/databases/${flappy}`, { key })).body.status, 'critical');
  });

  await t.test('resolved_by names the user of a personal key; a stored service account id is shown as stored', async (t) => {
    const db = await createDatabase('resolvers');
    await server.request('POST', '/v1/alerts/rules', { key, body: { name: 'cpu', database_id: db, metric: 'cpu_usage', operator: '>', threshold: 5 } });
    ingestAt(server, db, { metrics: { cpu_usage: 50 } });
    const [alert] = (await server.request('GET', `/v1/alerts?database_id=${db}`, { key })).body.data;
    const member = createUserKey(server.services, tenant.orgId, server.clock.now, 'member');
    const resolved = await server.request('PATCH', `/v1/alerts/${alert.id}/resolve`, { key: member.key });
    t.equal(resolved.status, 200, resolved.text);
    t.equal(resolved.body.resolved_by, member.userId);
    server.db.prepare('UPDATE alerts SET resolved_by = ? WHERE id = ?').run('sa_0123456789abcdefABCDEF', alert.id);
    const legacy = await server.request('GET', `/v1/alerts/${alert.id}`, { key });
    t.equal(legacy.body.resolved_by, 'sa_0123456789abcdefABCDEF', 'an alert resolved by an earlier server keeps what it was stored with');
  });

  await t.test('deleting or disabling a rule resolves its alerts; pausing a database resolves all of them', async (t) => {
    const db = await createDatabase('churn');
    const make = async (name: string) =>
      (await server.request('POST', '/v1/alerts/rules', { key, body: { name, database_id: db, metric: 'cpu_usage', operator: '>', threshold: 5, severity: 'info' } })).body.id as string;
    const [a, b, c] = [await make('a'), await make('b'), await make('c')];
    ingestAt(server, db, { metrics: { cpu_usage: 50 } });
    const open = async () => (await server.request('GET', `/v1/alerts?database_id=${db}`, { key })).body.data.map((alert: { rule_id: string }) => alert.rule_id).sort();
    t.same(await open(), [a, b, c].sort());
    t.equal((await server.request('GET', `/v1/databases/${db}`, { key })).body.status, 'healthy', 'info alerts leave the status alone');
    await server.request('DELETE', `/v1/alerts/rules/${a}`, { key });
    await server.request('PUT', `/v1/alerts/rules/${b}`, { key, body: { enabled: false } });
    t.same(await open(), [c]);
    const history = await server.request('GET', `/v1/alerts?status=resolved&database_id=${db}`, { key });
    t.ok(history.body.data.every((alert: { resolved_by: string; resolution_note: string }) => alert.resolved_by === 'auto' && /rule/.test(alert.resolution_note)));
    const paused = await server.request('PUT', `/v1/databases/${db}`, { key, body: { monitoring: { enabled: false } } });
    t.equal(paused.body.status, 'paused');
    t.same(await open(), []);
    const resumed = await server.request('PUT', `/v1/databases/${db}`, { key, body: { monitoring: { enabled: true } } });
    t.equal(resumed.body.status, 'pending', 'resumed: pending until the next sample');
    server.services.alerting.evaluateAll(server.clock.now);
    t.equal((await server.request('GET', `/v1/databases/${db}`, { key })).body.status, 'pending', 'old samples do not count after a resume');
    const changes = eventsOf(server, 'database.status_changed').filter((event) => event.data.object.id === db);
    t.same(changes.map((event) => event.data.object.status), ['healthy', 'paused', 'pending']);
  });

  await t.test('a status rule fires and resolves on the status derived without its own alerts', async (t) => {
    const db = await createDatabase('statusy');
    const rule = (body: Record<string, unknown>) => server.request('POST', '/v1/alerts/rules', { key, body: { database_id: db, ...body } });
    await rule({ name: 'hot', metric: 'cpu_usage', operator: '>', threshold: 50, severity: 'warning' });
    const created = await rule({ name: 'escalate', metric: 'status', operator: '==', threshold: 'warning', duration_seconds: 20, severity: 'critical' });
    t.equal(created.status, 201, created.text);
    t.match(created.body, { metric: 'status', operator: '==', threshold: 'warning' });
    const statusAlerts = async (status = 'all') =>
      (await server.request('GET', `/v1/alerts?status=${status}&database_id=${db}`, { key })).body.data.filter((alert: { metric: string }) => alert.metric === 'status');
    const databaseStatus = async () => (await server.request('GET', `/v1/databases/${db}`, { key })).body.status;

    ingestAt(server, db, { metrics: { cpu_usage: 60 } });
    ingestAt(server, db, { metrics: { cpu_usage: 60 } });
    t.equal(await databaseStatus(), 'warning', 'the metric rule sets warning');
    t.same(await statusAlerts(), [], 'warning for 10 s of 20');
    ingestAt(server, db, { metrics: { cpu_usage: 60 } });
    const [fired] = await statusAlerts();
    t.match(fired, { status: 'active', severity: 'critical', value: 'warning', threshold: 'warning', message: 'escalate: status is warning (== warning for 20 s)' });
    t.equal(await databaseStatus(), 'critical', 'its alert sets the status like any other');
    for (let i = 0; i < 3; i++) ingestAt(server, db, { metrics: { cpu_usage: 60 } });
    t.equal((await statusAlerts()).length, 1, 'critical from its own alert does not clear it: no flip-flop');
    t.equal(await databaseStatus(), 'critical');

    ingestAt(server, db, { metrics: { cpu_usage: 10 } });
    ingestAt(server, db, { metrics: { cpu_usage: 10 } });
    t.equal((await statusAlerts('active')).length, 1, 'the metric alert resolved; the status rule holds for its duration');
    ingestAt(server, db, { metrics: { cpu_usage: 10 } });
    ingestAt(server, db, { metrics: { cpu_usage: 10 } });
    t.match(await statusAlerts(), [{ id: fired.id, status: 'resolved', resolved_by: 'auto' }]);
    t.equal(await databaseStatus(), 'healthy');
    const events = eventsOf(server, 'alert.triggered').filter((event) => event.data.object.id === fired.id);
    t.match(events, [{ data: { object: { metric: 'status', value: 'warning', threshold: 'warning' } } }]);
  });

  await t.test('a status rule on unreachable fires from the timer when samples never come', async (t) => {
    const silent = await createDatabase('silent-status');
    await server.request('POST', '/v1/alerts/rules', {
      key,
      body: { name: 'down', database_id: silent, metric: 'status', operator: '==', threshold: 'unreachable', duration_seconds: 60, severity: 'info' },
    });
    const created = server.clock.now.getTime();
    const statusAlerts = async () =>
      (await server.request('GET', `/v1/alerts?database_id=${silent}`, { key })).body.data.filter((alert: { metric: string }) => alert.metric === 'status');
    server.services.alerting.evaluateAll(new Date(created + 79_000));
    t.same(await statusAlerts(), [], 'unreachable since 20 s, for 59 s');
    server.services.alerting.evaluateAll(new Date(created + 81_000));
    t.match(await statusAlerts(), [{ value: 'unreachable', threshold: 'unreachable', severity: 'info' }]);
  });

  await t.test('an unreachable database raises the stock unreachable alert after two minutes', async (t) => {
    await t.test('no samples at all: noticed by the timer', async (t) => {
      const silent = await createDatabase('silent', { connection: { host: '127.0.0.1', port: 1, database: 'd', username: 'u' } });
      const created = server.clock.now.getTime();
      const at = (seconds: number) => new Date(created + seconds * 1000);
      server.services.alerting.evaluateAll(at(20));
      t.equal((await server.request('GET', `/v1/databases/${silent}`, { key })).body.status, 'pending', 'the first sample is due within two intervals');
      server.services.alerting.evaluateAll(at(21));
      t.equal((await server.request('GET', `/v1/databases/${silent}`, { key })).body.status, 'unreachable');
      server.services.alerting.evaluateAll(at(139));
      t.equal((await server.request('GET', `/v1/alerts?database_id=${silent}`, { key })).body.data.length, 0, 'silent for 119 s');
      server.services.alerting.evaluateAll(at(141));
      const alerts = (await server.request('GET', `/v1/alerts?database_id=${silent}`, { key })).body.data;
      t.equal(alerts.length, 1);
      t.match(alerts[0], { severity: 'critical', metric: 'reachable', value: 0, message: /^Database unreachable for 2 minutes/ });
      t.match(alerts[0].message, `; no sample has arrived since ${new Date(created).toISOString()}`, 'the message says why');
      t.equal((await server.request('GET', `/v1/databases/${silent}`, { key })).body.status, 'unreachable', 'unreachable wins over critical');
    });

    await t.test('failed collections from the agent (a real connection to a closed port)', async (t) => {
      const closed = await createDatabase('closed-port', { connection: { host: '127.0.0.1', port: 1, database: 'd', username: 'postgres' } });
      const source = new PostgresSource({ host: '127.0.0.1', port: 1, database: 'd', username: 'postgres', password: null, ssl: false }, {
        statementTimeoutMs: 2000,
        connectTimeoutMs: 2000,
      });
      t.teardown(() => source.close());
      const runner = new CollectionRunner({ source, collectors: postgresCollectors, logger: pino({ level: 'silent' }) });
      const collectAndStore = async () => {
        const snapshot = await runner.collect(server.clock.now);
        t.equal(snapshot.reachable, false);
        ingestAt(server, closed, snapshot, 60_000);
      };
      await collectAndStore();
      t.equal((await server.request('GET', `/v1/databases/${closed}`, { key })).body.status, 'unreachable', 'at once');
      await collectAndStore();
      t.equal((await server.request('GET', `/v1/alerts?database_id=${closed}`, { key })).body.data.length, 0, 'failing for 60 s');
      await collectAndStore();
      const alerts = (await server.request('GET', `/v1/alerts?database_id=${closed}`, { key })).body.data;
      t.equal(alerts.length, 1, 'failing for 120 s');
      t.equal(alerts[0].metric, 'reachable');
      t.match(alerts[0].message, /; last error \(connection_refused\): connect ECONNREFUSED 127\.0\.0\.1:1$/, "the message quotes the database's last error");
      t.equal(eventsOf(server, 'alert.triggered').filter((event) => event.data.object.database_id === closed).length, 1);
    });
  });
});

t.test('silence while the server itself was down does not count as unreachability', async (t) => {
  const stateDir = mkdtempSync(join(tmpdir(), 'dbmon-alerts-restart-'));
  t.teardown(() => rmSync(stateDir, { recursive: true, force: true }));
  const start = new Date('2026-11-22T10:00:00Z');
  const first = await startTestServer({ now: start, stateDir });
  const { key } = createTenant(first.services, start);
  const created = await first.request('POST', '/v1/databases', {
    key,
    body: { name: 'steady', type: 'postgresql', connection: { host: 'h', database: 'd', username: 'u' }, monitoring: { interval_seconds: 60 } },
  });
  const id: string = created.body.id;
  ingestAt(first, id);
  await first.close();

  const downFor = 30 * 60_000;
  const second = await startTestServer({ now: new Date(start.getTime() + downFor), stateDir });
  t.teardown(second.close);
  const later = (seconds: number) => new Date(start.getTime() + downFor + seconds * 1000);
  second.services.alerting.evaluateAll(later(15));
  t.equal((await second.request('GET', `/v1/databases/${id}`, { key })).body.status, 'healthy', 'the agent gets two intervals after the restart');
  t.same((await second.request('GET', '/v1/alerts', { key })).body.data, []);
  second.services.alerting.evaluateAll(later(121));
  t.equal((await second.request('GET', `/v1/databases/${id}`, { key })).body.status, 'unreachable', 'then silence counts');
  second.services.alerting.evaluateAll(later(239));
  t.same((await second.request('GET', '/v1/alerts', { key })).body.data, [], 'for 119 s');
  second.services.alerting.evaluateAll(later(240));
  t.equal((await second.request('GET', '/v1/alerts', { key })).body.data.length, 1, 'for 120 s: the stock alert');
});

t.test('migration 0003 gives organizations that existed before it the stock rules', async (t) => {
  const db = new Database(':memory:');
  t.teardown(() => db.close());
  const migrations = readMigrations();
  migrate(db, migrations.filter((migration) => migration.version < 3));
  db.prepare("INSERT INTO organizations (id, name, slug, plan, created_at) VALUES ('org_old', 'old', 'old', 'free', '2026-01-01T00:00:00Z')").run();
  migrate(db, migrations.filter((migration) => migration.version === 3));
  const rules = db.prepare('SELECT id, name, metric, operator, threshold, duration_seconds, severity FROM alert_rules ORDER BY name').all() as {
    id: string;
    metric: string;
  }[];
  t.same(rules.map((rule) => rule.metric).sort(), ['connections.used_pct', 'disk_usage', 'reachable']);
  t.ok(rules.every((rule) => isId('rule', rule.id)), 'ids have the usual shape');
});
