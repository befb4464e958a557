import pg from 'pg';
import pino from 'pino';
import t from 'tap';
import { Webhook } from 'standardwebhooks';
import { createDatabaseCollection } from '../../../agent/collection/database-collection.js';
import { createThrowawayPostgresDatabase } from '../../helpers/throwaway-postgres-database.js';
import { createTenant, startTestServer } from '../../helpers/test-server.js';
import { startWebhookReceiver, type ReceivedWebhook } from '../../helpers/webhook-receiver.js';

const sessions = 4;

t.test('real PostgreSQL: extra sessions fire a connections.active rule, webhooks arrive signed, closing them resolves it', async (t) => {
  const database = await createThrowawayPostgresDatabase();
  t.teardown(() => database.drop());
  const server = await startTestServer({ allowPrivateWebhookTargets: true });
  t.teardown(server.close);
  const receiver = await startWebhookReceiver();
  t.teardown(receiver.close);
  const dispatcher = server.dispatcher();
  const { key } = createTenant(server.services, server.clock.now);

  const hook = await server.request('POST', '/v1/webhooks', {
    key,
    body: { url: receiver.url, event_types: ['alert.triggered', 'alert.resolved', 'database.status_changed'] },
  });
  t.equal(hook.status, 201, hook.text);
  const verifier = new Webhook(hook.body.secret);
  const created = await server.request('POST', '/v1/databases', {
    key,
    body: {
      name: 'real-postgres',
      type: 'postgresql',
      connection: { host: database.settings.host, port: database.settings.port, database: database.name, username: database.settings.username },
      monitoring: { interval_seconds: 10 },
    },
  });
  t.equal(created.status, 201, created.text);
  const databaseId: string = created.body.id;
  // The stock disk rule watches this machine's disk, which the test does not control.
  const stock = (await server.request('GET', '/v1/alerts/rules', { key })).body.data as { id: string; metric: string }[];
  await server.request('PUT', `/v1/alerts/rules/${stock.find((rule) => rule.metric === 'disk_usage')!.id}`, { key, body: { enabled: false } });
  const rule = await server.request('POST', '/v1/alerts/rules', {
    key,
    body: { name: 'extra sessions', database_id: databaseId, metric: 'connections.active', operator: '>', threshold: 2, duration_seconds: 20 },
  });
  t.equal(rule.status, 201, rule.text);

  // What the embedded agent does each interval: collect the assigned database, store the snapshot.
  const assignment = server.services.agents.assignments(null).databases.find((entry) => entry.id === databaseId)!;
  const collection = createDatabaseCollection(assignment, { logger: pino({ level: 'silent' }), timeoutMs: 5000, procRoot: '/proc', diskPath: '/' });
  t.teardown(() => collection.close());
  let batch = 0;
  const cycle = async () => {
    const snapshot = await collection.collect(server.clock.now, AbortSignal.timeout(10_000));
    t.equal(snapshot.reachable, true, snapshot.error ?? 'reachable');
    // Stamped when its counters were read, a few milliseconds into the cycle: the server receives it after that.
    server.clock.now = new Date(snapshot.timestamp);
    const result = server.services.ingest.ingest(
      { kind: 'embedded' },
      { batch_id: `pg-alerts-batch-${String(++batch).padStart(4, '0')}`, samples: [{ database_id: databaseId, snapshot }] },
      server.clock.now,
    );
    t.equal(result.stored, 1);
    server.clock.now = new Date(server.clock.now.getTime() + 10_000);
    return snapshot.metrics.connections.active;
  };
  const activeAlerts = async () => (await server.request('GET', `/v1/alerts?database_id=${databaseId}`, { key })).body.data as Record<string, unknown>[];
  const status = async () => (await server.request('GET', `/v1/databases/${databaseId}`, { key })).body.status as string;
  const deliver = async () => {
    while ((await dispatcher.tick()) > 0);
  };
  const verified = (entry: ReceivedWebhook) => verifier.verify(entry.body, entry.headers as Record<string, string>) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- event JSON

  const sleepers: pg.Client[] = [];
  /** Waits until pg_stat_activity shows `expected` sleeping sessions active (a cancelled backend takes a moment to leave). */
  const sleepersActive = async (expected: number, what: string) => {
    for (let tries = 0; tries < 250; tries++) {
      const { rows } = await database.admin(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND query LIKE 'SELECT pg_sleep%'",
        [database.name],
      );
      if (rows[0].n === expected) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`the sleeping sessions did not ${what}`);
  };
  const openSessions = async () => {
    for (let i = 0; i < sessions; i++) {
      const client = await database.connect();
      client.on('error', () => undefined);
      sleepers.push(client);
      client.query('SELECT pg_sleep(60)').catch(() => undefined);
    }
    await sleepersActive(sessions, 'start');
  };
  const closeSessions = async () => {
    await database.admin("SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND query LIKE 'SELECT pg_sleep%'", [database.name]);
    await Promise.all(sleepers.splice(0).map((client) => client.end().catch(() => undefined)));
    await sleepersActive(0, 'end');
  };
  t.teardown(closeSessions);

  t.equal(await cycle(), 0, 'no extra sessions at first');
  t.equal(await status(), 'healthy');

  await openSessions();
  t.equal(await cycle(), sessions, 'the collector sees the sleeping sessions');
  await cycle();
  t.same(await activeAlerts(), [], 'held for 10 s of 20');
  await cycle();
  const [alert] = await activeAlerts();
  t.match(alert, { rule_id: rule.body.id, severity: 'warning', status: 'active', metric: 'connections.active', value: sessions, threshold: 2 });
  t.equal(await status(), 'warning');

  await deliver();
  const triggered = receiver.ofType('alert.triggered');
  t.equal(triggered.length, 1);
  t.match(verified(triggered[0]!), { type: 'alert.triggered', data: { object: { id: alert!.id, status: 'active' } } });
  const changes = receiver.ofType('database.status_changed').map(verified);
  t.same(
    changes.map((event) => [event.data.previous_attributes.status, event.data.object.status]),
    [['pending', 'healthy'], ['healthy', 'warning']],
    'every status change arrived, signed',
  );
  t.equal(triggered[0]!.headers['webhook-id'], verified(triggered[0]!).id, 'webhook-id is the event id');

  await closeSessions();
  t.equal(await cycle(), 0, 'the sessions are gone');
  await cycle();
  t.equal((await activeAlerts()).length, 1, 'clear for 10 s of 20');
  await cycle();
  t.same(await activeAlerts(), [], 'clear for 20 s: resolved by itself');
  t.equal(await status(), 'healthy');
  await deliver();
  const resolved = receiver.ofType('alert.resolved').map(verified);
  t.equal(resolved.length, 1);
  t.match(resolved[0], { data: { object: { id: alert!.id, status: 'resolved', resolved_by: 'auto' } } });
  t.same(receiver.ofType('database.status_changed').map(verified).at(-1)!.data.object.status, 'healthy');

  await t.test('manual resolve: once, then 409', async (t) => {
    await openSessions();
    for (let i = 0; i < 3; i++) await cycle();
    const [again] = await activeAlerts();
    t.ok(again, 'the breach fires a new alert');
    t.not(again!.id, alert!.id);
    const first = await server.request('PATCH', `/v1/alerts/${again!.id}/resolve`, { key, body: { note: 'expected: batch job' } });
    t.equal(first.status, 200);
    t.match(first.body, { status: 'resolved', resolution_note: 'expected: batch job' });
    const second = await server.request('PATCH', `/v1/alerts/${again!.id}/resolve`, { key });
    t.equal(second.status, 409);
    t.equal(second.body.error.code, 'already_resolved');
    for (let i = 0; i < 3; i++) await cycle();
    t.same(await activeAlerts(), [], 'the sessions are still there, but a resolved alert stays resolved until the condition clears');
    t.equal(await status(), 'healthy');
    await deliver();
    t.equal(receiver.ofType('alert.resolved').length, 2);
    t.ok(receiver.received.every((entry) => entry.status === 200));
  });
});
