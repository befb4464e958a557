import { join } from 'node:path';
import type pg from 'pg';
import t from 'tap';
import { Webhook } from 'standardwebhooks';
import { captureLogger } from '../../helpers/capture-logger.js';
import { startTestEmbeddedAgent } from '../../helpers/embedded-agent-under-test.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { createTenant, startTestServer } from '../../helpers/test-server.js';
import { createThrowawayPostgresDatabase } from '../../helpers/throwaway-postgres-database.js';
import { waitUntil } from '../../helpers/wait-until.js';
import { startWebhookReceiver } from '../../helpers/webhook-receiver.js';

/**
 * The whole chain in real time: the server's embedded agent (scheduler, real PostgreSQL
 * collectors, spool, pusher, in-process ingest) stores samples, ingest evaluates the rules, the
 * outbox takes the events, the running dispatcher delivers them.
 */
t.test('embedded agent to webhook: sessions on a real PostgreSQL fire an alert that arrives signed, and closing them resolves it', async (t) => {
  const database = await createThrowawayPostgresDatabase();
  t.teardown(() => database.drop());
  const server = await startTestServer({ allowPrivateWebhookTargets: true });
  t.teardown(server.close);
  const receiver = await startWebhookReceiver();
  t.teardown(receiver.close);
  const { key } = createTenant(server.services, server.clock.now);
  const hook = await server.request('POST', '/v1/webhooks', { key, body: { url: receiver.url, event_types: ['alert.triggered', 'alert.resolved', 'database.status_changed'] } });
  const created = await server.request('POST', '/v1/databases', {
    key,
    body: {
      name: 'embedded',
      type: 'postgresql',
      connection: { host: database.settings.host, port: database.settings.port, database: database.name, username: database.settings.username },
      monitoring: { interval_seconds: 10 },
    },
  });
  const databaseId: string = created.body.id;
  await server.request('POST', '/v1/alerts/rules', {
    key,
    body: { name: 'sessions', database_id: databaseId, metric: 'connections.active', operator: '>', threshold: 1, severity: 'critical' },
  });

  const sleepers: pg.Client[] = [];
  for (let i = 0; i < 2; i++) {
    const client = await database.connect();
    client.on('error', () => undefined);
    client.query('SELECT pg_sleep(30)').catch(() => undefined);
    sleepers.push(client);
  }
  t.teardown(() => database.admin("SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND query LIKE 'SELECT pg_sleep%'", [database.name]));
  await waitUntil('the sleeping sessions', async () => {
    const { rows } = await database.admin(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND query LIKE 'SELECT pg_sleep%'",
      [database.name],
    );
    return rows[0].n === sleepers.length;
  });

  server.dispatcher({ now: () => new Date(), pollIntervalMs: 20 }).start();
  startTestEmbeddedAgent(t, server, { spoolPath: join(tempDir(t), 'spool.db'), logger: captureLogger('warn').logger });

  await waitUntil('alert.triggered at the receiver', async () => receiver.ofType('alert.triggered').length > 0, 15_000);
  const verifier = new Webhook(hook.body.secret);
  const [triggered] = receiver.ofType('alert.triggered');
  const event = verifier.verify(triggered!.body, triggered!.headers as Record<string, string>) as { data: { object: Record<string, unknown> } };
  t.match(event.data.object, { database_id: databaseId, metric: 'connections.active', severity: 'critical', status: 'active' });
  t.ok((event.data.object.value as number) >= 2, `the agent saw ${String(event.data.object.value)} active sessions`);
  await waitUntil('the status change at the receiver', async () =>
    receiver.ofType('database.status_changed').some((entry) => entry.json.data.object.status === 'critical'),
  );
  t.equal((await server.request('GET', `/v1/databases/${databaseId}`, { key })).body.status, 'critical');

  await database.admin("SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND query LIKE 'SELECT pg_sleep%'", [database.name]);
  // Resolving needs two clear samples in a row: about two 10 s intervals of the real agent.
  await waitUntil('alert.resolved at the receiver', async () => receiver.ofType('alert.resolved').length > 0, 45_000);
  const [resolved] = receiver.ofType('alert.resolved');
  const resolvedEvent = verifier.verify(resolved!.body, resolved!.headers as Record<string, string>) as { data: { object: Record<string, unknown> } };
  t.match(resolvedEvent.data.object, { database_id: databaseId, status: 'resolved', resolved_by: 'auto' });
  await waitUntil('the status back to healthy', async () =>
    receiver.ofType('database.status_changed').some((entry) => entry.json.data.object.status === 'healthy'),
  );
  t.equal((await server.request('GET', `/v1/databases/${databaseId}`, { key })).body.status, 'healthy');
});
