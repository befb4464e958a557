import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { Webhook } from 'standardwebhooks';
import { loadServerConfig } from '../../../server/config.js';
import { createServiceKey, createTenant, startTestServer } from '../../helpers/test-server.js';
import { startWebhookReceiver } from '../../helpers/webhook-receiver.js';

/** Event data reduced to an id: these tests are about routing deliveries, not their payloads (openapi-webhooks.test.ts is). */
const stubData = (id: string) => ({ object: { id } }) as never;

t.test('webhooks.allow_private_targets: off by default, DBMON_WEBHOOKS_ALLOW_PRIVATE_TARGETS turns it on', async (t) => {
  t.equal(loadServerConfig({}, {}).webhooks.allow_private_targets, false);
  t.equal(loadServerConfig({}, { DBMON_WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' }).webhooks.allow_private_targets, true);
  t.throws(() => loadServerConfig({}, { DBMON_WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'maybe' }), /webhooks\.allow_private_targets/);
});

t.test('without webhooks.allow_private_targets, private destinations are refused', async (t) => {
  const server = await startTestServer();
  t.teardown(server.close);
  const { key } = createTenant(server.services, server.clock.now);
  for (const url of [
    'http://127.0.0.1:9/hooks',
    'http://localhost/hooks',
    'http://[::1]/hooks',
    'http://10.0.0.1/hooks',
    'http://192.168.1.20/hooks',
    'http://169.254.169.254/latest/meta-data',
    'http://[::ffff:127.0.0.1]/hooks',
    'http://[fd00::1]/hooks',
    'http://0.0.0.0/hooks',
    'https://no-such-host.invalid/hooks',
  ]) {
    const response = await server.request('POST', '/v1/webhooks', { key, body: { url } });
    t.equal(response.status, 400, `${url}: ${response.text}`);
    t.equal(response.body.error.code, 'invalid_parameter');
    t.equal(response.body.error.param, 'url');
  }
  const refusedMessage = (await server.request('POST', '/v1/webhooks', { key, body: { url: 'http://127.0.0.1/' } })).body.error.message;
  t.match(refusedMessage, /webhooks\.allow_private_targets/, 'the message names the setting');
  const publicTarget = await server.request('POST', '/v1/webhooks', { key, body: { url: 'https://93.184.215.14/hooks' } });
  t.equal(publicTarget.status, 201, 'a public address is fine');
  const moved = await server.request('PUT', `/v1/webhooks/${publicTarget.body.id}`, { key, body: { url: 'http://127.0.0.1/x' } });
  t.equal(moved.status, 400, 'and an update is checked too');
  for (const url of ['ftp://93.184.215.14/', 'not a url', 'https://user:pw@93.184.215.14/']) {
    t.equal((await server.request('POST', '/v1/webhooks', { key, body: { url } })).status, 400, url);
  }
});

t.test('webhook endpoints over HTTP', async (t) => {
  const server = await startTestServer({ allowPrivateWebhookTargets: true });
  t.teardown(server.close);
  const { key, orgId } = createTenant(server.services, server.clock.now);
  const receiver = await startWebhookReceiver();
  t.teardown(receiver.close);
  const dispatcher = server.dispatcher();

  const created = await server.request('POST', '/v1/webhooks', {
    key,
    body: { url: receiver.url, description: 'ops', event_types: ['alert.triggered', 'alert.resolved'] },
  });
  t.equal(created.status, 201, created.text);
  const id: string = created.body.id;
  const secret: string = created.body.secret;

  await t.test('the secret is shown once and stored encrypted', async (t) => {
    t.match(id, /^wh_[0-9A-Za-z]{20,}$/);
    t.match(secret, /^whsec_[A-Za-z0-9+/]{32}$/, 'whsec_ and the base64 of 24 bytes');
    t.equal(Buffer.from(secret.slice(6), 'base64').length, 24);
    t.equal(created.headers.get('location'), `/v1/webhooks/${id}`);
    t.same(created.body, {
      id,
      url: receiver.url,
      description: 'ops',
      event_types: ['alert.triggered', 'alert.resolved'],
      enabled: true,
      disabled_reason: null,
      created_at: server.clock.now.toISOString(),
      updated_at: server.clock.now.toISOString(),
      secret,
    });
    const got = await server.request('GET', `/v1/webhooks/${id}`, { key });
    t.notOk('secret' in got.body, 'never again');
    const stored = server.db.prepare('SELECT secret_encrypted FROM webhooks WHERE id = ?').pluck().get(id) as Buffer;
    t.notOk(stored.includes(Buffer.from(secret.slice(6))), 'the plain secret is not in the database');
    const list = await server.request('GET', '/v1/webhooks', { key });
    t.same(list.body.data, [got.body]);
    t.equal(list.body.pagination.total, 1);
  });

  await t.test('validation, scopes and 404s', async (t) => {
    const bad = await server.request('POST', '/v1/webhooks', { key, body: { url: receiver.url, event_types: ['alert.exploded'] } });
    t.equal(bad.status, 400);
    t.equal(bad.body.error.param, 'event_types.0');
    t.equal((await server.request('POST', '/v1/webhooks', { key, body: { url: receiver.url, event_types: [] } })).status, 400);
    t.equal((await server.request('POST', '/v1/webhooks', { key, body: {} })).body.error.code, 'missing_required_parameter');
    t.equal((await server.request('POST', '/v1/webhooks', { key, body: { url: receiver.url, secret: 'mine' } })).body.error.code, 'unknown_parameter');
    const noScope = createServiceKey(server.services, orgId, server.clock.now, { scopes: ['alerts'], account: 'alerts-only' });
    t.equal((await server.request('GET', '/v1/webhooks', { key: noScope })).status, 403);
    const other = createTenant(server.services, server.clock.now);
    t.equal((await server.request('GET', `/v1/webhooks/${id}`, { key: other.key })).status, 404);
    t.equal((await server.request('GET', `/v1/webhooks/${id}/deliveries`, { key: other.key })).status, 404);
    t.equal((await server.request('POST', `/v1/webhooks/${id}/test`, { key: other.key })).status, 404);
  });

  await t.test('the test event is delivered signed, and the delivery is listed with its attempts', async (t) => {
    const queued = await server.request('POST', `/v1/webhooks/${id}/test`, { key });
    t.equal(queued.status, 202, queued.text);
    t.match(queued.body, { webhook_id: id, event_type: 'webhook.test', status: 'pending', attempts: 0, attempt_history: [] });
    t.equal(await dispatcher.tick(), 1);
    t.equal(receiver.received.length, 1);
    const [request] = receiver.received;
    t.equal(request!.headers['webhook-id'], queued.body.event_id);
    t.equal(request!.headers['content-type'], 'application/json');
    const payload = new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>) as Record<string, unknown>;
    t.match(payload, { id: queued.body.event_id, type: 'webhook.test', data: { object: { id, url: receiver.url } } });
    t.equal(await dispatcher.tick(), 0, 'nothing more is due');
    const deliveries = await server.request('GET', `/v1/webhooks/${id}/deliveries`, { key });
    t.equal(deliveries.status, 200);
    t.match(deliveries.body.data[0], { event_id: queued.body.event_id, status: 'succeeded', attempts: 1, response_code: 200, error: null, next_attempt_at: null });
    t.equal(deliveries.body.data[0].attempt_history.length, 1);
    t.match(deliveries.body.data[0].attempt_history[0], { attempt: 1, response_code: 200, error: null, next_attempt_at: null });
    t.equal((await server.request('GET', `/v1/webhooks/${id}/deliveries?status=pending`, { key })).body.data.length, 0);
  });

  await t.test('event type filters decide which events an endpoint gets', async (t) => {
    const all = await server.request('POST', '/v1/webhooks', { key, body: { url: receiver.url } });
    t.same(all.body.event_types, ['*']);
    server.clock.now = new Date(server.clock.now.getTime() + 1000);
    server.services.transaction(() => {
      server.services.events.publish(orgId, 'database.status_changed', stubData('db_x'), server.clock.now);
      server.services.events.publish(orgId, 'alert.resolved', stubData('alert_x'), server.clock.now);
    });
    const before = receiver.received.length;
    t.equal(await dispatcher.tick(), 3, 'the filtered endpoint gets one, the catch-all two');
    const got = receiver.received.slice(before).map((entry) => entry.json.type).sort();
    t.same(got, ['alert.resolved', 'alert.resolved', 'database.status_changed']);
    const mine = await server.request('GET', `/v1/webhooks/${id}/deliveries`, { key });
    t.same(mine.body.data.map((delivery: { event_type: string }) => delivery.event_type), ['alert.resolved', 'webhook.test'], 'newest first');
    t.throws(() => server.services.events.publish(orgId, 'alert.resolved', stubData('alert_x'), server.clock.now), /inside the transaction/);
    await server.request('DELETE', `/v1/webhooks/${all.body.id}`, { key });
  });

  await t.test('Retry-After is honoured; 410 Gone disables the endpoint', async (t) => {
    receiver.answer = () => ({ status: 503, headers: { 'retry-after': '120' } });
    await server.request('POST', `/v1/webhooks/${id}/test`, { key });
    t.equal(await dispatcher.tick(), 1);
    const pending = (await server.request('GET', `/v1/webhooks/${id}/deliveries?status=pending`, { key })).body.data[0];
    t.match(pending, { status: 'pending', attempts: 1, response_code: 503, error: 'HTTP 503' });
    t.ok(Date.parse(pending.next_attempt_at) >= server.clock.now.getTime() + 120_000, `next attempt ${pending.next_attempt_at} is 120 s or more away`);
    t.equal(await dispatcher.tick(), 0, 'not before');
    server.clock.now = new Date(Date.parse(pending.next_attempt_at));
    receiver.answer = () => ({ status: 410 });
    t.equal(await dispatcher.tick(), 1);
    const gone = await server.request('GET', `/v1/webhooks/${id}`, { key });
    t.match(gone.body, { enabled: false, disabled_reason: 'gone' });
    const failed = (await server.request('GET', `/v1/webhooks/${id}/deliveries?status=failed`, { key })).body.data[0];
    t.match(failed, { status: 'failed', attempts: 2, response_code: 410, next_attempt_at: null });
    t.same(failed.attempt_history.map((attempt: { response_code: number }) => attempt.response_code), [503, 410]);
    const refused = await server.request('POST', `/v1/webhooks/${id}/test`, { key });
    t.equal(refused.status, 409);
    t.equal(refused.body.error.code, 'webhook_disabled');
    server.services.transaction(() => server.services.events.publish(orgId, 'alert.triggered', stubData('alert_x'), server.clock.now));
    t.equal(await dispatcher.tick(), 0, 'a disabled endpoint gets nothing');
    const enabled = await server.request('PUT', `/v1/webhooks/${id}`, { key, body: { enabled: true } });
    t.match(enabled.body, { enabled: true, disabled_reason: null });
    receiver.answer = () => ({ status: 200 });
    t.equal((await server.request('POST', `/v1/webhooks/${id}/test`, { key })).status, 202);
    t.equal(await dispatcher.tick(), 1);
  });

  await t.test('update merges, delete removes the endpoint and its deliveries', async (t) => {
    const updated = await server.request('PUT', `/v1/webhooks/${id}`, { key, body: { description: 'on-call', event_types: ['*', 'alert.resolved'] } });
    t.equal(updated.status, 200);
    t.match(updated.body, { url: receiver.url, description: 'on-call', event_types: ['*'] });
    t.equal((await server.request('DELETE', `/v1/webhooks/${id}`, { key })).status, 204);
    t.equal((await server.request('GET', `/v1/webhooks/${id}`, { key })).status, 404);
    t.equal(server.db.prepare('SELECT count(*) FROM webhook_deliveries WHERE webhook_id = ?').pluck().get(id), 0);
  });
});

t.test('a destination that turned private is refused at send time', async (t) => {
  const stateDir = mkdtempSync(join(tmpdir(), 'dbmon-webhooks-'));
  t.teardown(() => rmSync(stateDir, { recursive: true, force: true }));
  const allowing = await startTestServer({ allowPrivateWebhookTargets: true, stateDir });
  const { key } = createTenant(allowing.services, allowing.clock.now);
  const receiver = await startWebhookReceiver();
  t.teardown(receiver.close);
  const created = await allowing.request('POST', '/v1/webhooks', { key, body: { url: receiver.url } });
  t.equal(created.status, 201);
  await allowing.request('POST', `/v1/webhooks/${created.body.id}/test`, { key });
  await allowing.close();

  const strict = await startTestServer({ stateDir });
  t.teardown(strict.close);
  t.equal(await strict.dispatcher().tick(), 1);
  t.equal(receiver.received.length, 0, 'nothing was sent');
  const delivery = (await strict.request('GET', `/v1/webhooks/${created.body.id}/deliveries`, { key })).body.data[0];
  t.match(delivery, { status: 'pending', attempts: 1, response_code: null, error: /^destination refused: 127\.0\.0\.1 is a loopback, link-local, private or otherwise non-public address/ });
});
