import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { Webhook } from 'standardwebhooks';
import type { RetryPolicy } from '../../../server/webhooks/retry-schedule.js';
import { makeSnapshot } from '../../helpers/snapshot-factory.js';
import { startTcpForwarder } from '../../helpers/tcp-forwarder.js';
import { createTenant, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { startWebhookReceiver } from '../../helpers/webhook-receiver.js';

/** Short delays so the test runs in seconds: 1 s, 2 s, 4 s (random() = 1 draws the whole ceiling). */
const fastRetries: RetryPolicy = { baseDelayMs: 1000, maxDelayMs: 60_000, retryForMs: 24 * 3_600_000, maxRetryAfterMs: 60_000 };

t.test('a receiver that is down, then fails twice, then answers gets the event once, across server restarts', async (t) => {
  const stateDir = mkdtempSync(join(tmpdir(), 'dbmon-webhook-restart-'));
  t.teardown(() => rmSync(stateDir, { recursive: true, force: true }));
  const receiver = await startWebhookReceiver((_request, index) => ({ status: index < 2 ? 500 : 200 }));
  t.teardown(receiver.close);
  // A fixed port in front of the receiver: stopped, it refuses connections.
  const front = await startTcpForwarder(receiver.port);
  t.teardown(() => front.stop());
  await front.stop();

  let clock = new Date();
  const boot = async (): Promise<TestServer> =>
    startTestServer({ stateDir, now: clock, allowPrivateWebhookTargets: true, webhookRetryPolicy: fastRetries });
  const restart = async (server: TestServer, advanceMs: number): Promise<TestServer> => {
    await server.close();
    clock = new Date(server.clock.now.getTime() + advanceMs);
    return boot();
  };
  const attempt = (server: TestServer) => server.dispatcher({ random: () => 1 }).tick();

  let server = await boot();
  const { key, orgId } = createTenant(server.services, server.clock.now);
  const hook = await server.request('POST', '/v1/webhooks', {
    key,
    body: { url: `http://127.0.0.1:${front.port}/hooks`, event_types: ['alert.triggered'] },
  });
  t.equal(hook.status, 201, hook.text);
  const secret: string = hook.body.secret;
  const database = await server.request('POST', '/v1/databases', {
    key,
    body: { name: 'primary', type: 'postgresql', connection: { host: '127.0.0.1', database: 'd', username: 'u' }, monitoring: { interval_seconds: 10 } },
  });
  await server.request('POST', '/v1/alerts/rules', {
    key,
    body: { name: 'cpu', database_id: database.body.id, metric: 'cpu_usage', operator: '>', threshold: 90 },
  });
  server.services.ingest.ingest(
    { kind: 'embedded' },
    { batch_id: 'restart-batch-000001', samples: [{ database_id: database.body.id, snapshot: makeSnapshot(server.clock.now, { metrics: { cpu_usage: 99 } }) }] },
    server.clock.now,
  );
  const triggered = server.db.prepare("SELECT id FROM events WHERE org_id = ? AND type = 'alert.triggered'").pluck().all(orgId) as string[];
  t.equal(triggered.length, 1, 'the alert fired and its event is in the outbox');
  const eventId = triggered[0]!;

  t.equal(await attempt(server), 1, 'first attempt');
  const afterRefused = (await server.request('GET', `/v1/webhooks/${hook.body.id}/deliveries`, { key })).body.data[0];
  t.match(afterRefused, { event_id: eventId, status: 'pending', attempts: 1, response_code: null, error: /ECONNREFUSED/ });
  t.equal(Date.parse(afterRefused.next_attempt_at) - server.clock.now.getTime() >= 1000, true, 'retry in 1 s or more');
  t.equal(await attempt(server), 0, 'not due yet');

  await front.start();
  server = await restart(server, 1500);
  t.equal(await attempt(server), 1, 'second attempt, after a restart');
  server = await restart(server, 2500);
  t.equal(await attempt(server), 1, 'third attempt, after another restart');
  server = await restart(server, 4500);
  t.equal(await attempt(server), 1, 'fourth attempt');
  t.equal(await attempt(server), 0, 'done');
  server = await restart(server, 3_600_000);
  t.equal(await attempt(server), 0, 'and nothing is sent again, even much later');
  t.teardown(() => server.close());

  t.same(receiver.received.map((request) => request.status), [500, 500, 200], 'the receiver saw 500, 500, 200');
  t.same(new Set(receiver.received.map((request) => request.headers['webhook-id'])), new Set([eventId]), 'the same webhook-id every time');
  t.equal(receiver.received.filter((request) => request.status === 200).length, 1, 'exactly one success');
  for (const request of receiver.received) {
    const payload = new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as { id: string; type: string };
    t.match(payload, { id: eventId, type: 'alert.triggered', data: { object: { database_id: database.body.id, status: 'active' } } });
  }
  const delivery = (await server.request('GET', `/v1/webhooks/${hook.body.id}/deliveries`, { key })).body.data[0];
  t.match(delivery, { event_id: eventId, status: 'succeeded', attempts: 4, response_code: 200, error: null, next_attempt_at: null });
  t.same(delivery.attempt_history.map((entry: { response_code: number | null }) => entry.response_code), [null, 500, 500, 200]);
  t.ok(delivery.attempt_history.slice(0, 3).every((entry: { next_attempt_at: string | null }) => entry.next_attempt_at !== null));
});
