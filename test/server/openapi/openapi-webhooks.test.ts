import t from 'tap';
import { eventTypes, testEventType } from '../../../server/webhooks/webhooks-schema.js';
import { openApiWebhookChecker } from '../../helpers/openapi-webhook-check.js';
import { makeSnapshot } from '../../helpers/snapshot-factory.js';
import { createServiceKey, createTenant, startTestServer } from '../../helpers/test-server.js';
import { startWebhookReceiver } from '../../helpers/webhook-receiver.js';

interface WebhookOperation {
  parameters: { name: string; in: string; required: boolean }[];
  requestBody: { required: boolean; content: Record<string, { schema: { $ref: string } }> };
}

const minute = 60_000;
const start = new Date('2026-11-24T12:00:00Z');
const server = await startTestServer({ now: start, allowPrivateWebhookTargets: true });
t.teardown(server.close);
const advance = (ms: number) => {
  server.clock.now = new Date(server.clock.now.getTime() + ms);
};
const document = (await server.request('GET', '/v1/openapi.json')).body as {
  webhooks: Record<string, { post: WebhookOperation }>;
  components: { schemas: Record<string, { properties: { type: { enum: string[] } } }> };
};

t.test('every event type the server emits has a webhook, with the Standard Webhooks headers and its payload schema', async (t) => {
  t.same(Object.keys(document.webhooks).sort(), [...eventTypes, testEventType].sort());
  for (const [type, item] of Object.entries(document.webhooks)) {
    t.same(Object.keys(item), ['post'], `${type}: a POST`);
    const headers = item.post.parameters.filter((parameter) => parameter.in === 'header' && parameter.required).map((parameter) => parameter.name);
    t.same(headers, ['webhook-id', 'webhook-timestamp', 'webhook-signature'], `${type}: signed`);
    t.equal(item.post.requestBody.required, true);
    const reference = item.post.requestBody.content['application/json']!.schema.$ref;
    const schema = document.components.schemas[reference.replace('#/components/schemas/', '')]!;
    t.same(schema.properties.type.enum, [type], `${type}: its payload schema names it`);
  }
});

t.test('real deliveries of every event type match their webhook in the document', async (t) => {
  const checkDelivery = await openApiWebhookChecker(server.url);
  const receiver = await startWebhookReceiver();
  t.teardown(receiver.close);
  const dispatcher = server.dispatcher();
  const tenant = createTenant(server.services, start);
  const webhook = (await server.request('POST', '/v1/webhooks', { key: tenant.key, body: { url: receiver.url } })).body;

  await server.request('POST', `/v1/webhooks/${webhook.id}/test`, { key: tenant.key });

  const agentKey = createServiceKey(server.services, tenant.orgId, start, { scopes: ['agent'], account: 'webhook-agent' });
  const agentId: string = (await server.request('GET', '/v1/agent/assignments', { key: agentKey })).body.agent_id;
  const created = await server.request('POST', '/v1/databases', {
    key: tenant.key,
    body: { name: 'orders', type: 'postgresql', agent_id: agentId, connection: { host: 'db.internal', database: 'orders', username: 'u' } },
  });
  t.equal(created.status, 201, created.text);
  const databaseId: string = created.body.id;
  const rule = await server.request('POST', '/v1/alerts/rules', {
    key: tenant.key,
    body: { name: 'busy', database_id: databaseId, metric: 'connections.active', operator: '>', threshold: 50 },
  });
  t.equal(rule.status, 201, rule.text);
  let batch = 0;
  const post = async (active: number, statements: unknown[] = []) => {
    const snapshot = { ...makeSnapshot(server.clock.now, { metrics: { connections: { active, idle: 0, total: active, max: 100 } } }), statements };
    const response = await server.request('POST', '/v1/agent/samples', {
      key: agentKey,
      body: { batch_id: `webhook-doc-batch-${String(++batch).padStart(6, '0')}`, samples: [{ database_id: databaseId, snapshot }] },
    });
    t.equal(response.body.stored, 1, response.text);
    advance(minute);
  };
  await post(60);
  const [alert] = (await server.request('GET', `/v1/alerts?database_id=${databaseId}`, { key: tenant.key })).body.data;
  t.equal((await server.request('PATCH', `/v1/alerts/${alert.id}/resolve`, { key: tenant.key, body: {} })).status, 200);
  await post(10, [{ query_id_source: '1', query: 'SELECT * FROM a WHERE x = $1', calls: 10, total_time_ms: 1000, max_time_ms: 200, rows: 10 }]);

  const queryId: string = (await server.request('GET', `/v1/databases/${databaseId}/queries`, { key: tenant.key })).body.data[0].id;
  const leaseJob = async () => (await server.request('GET', '/v1/agent/jobs', { key: agentKey })).body.jobs[0];
  const report = async (body: unknown) => {
    const response = await server.request('POST', `/v1/agent/jobs/${(await leaseJob()).id}/result`, { key: agentKey, body });
    t.equal(response.status, 200, response.text);
  };
  const requested = (await server.request('POST', `/v1/databases/${databaseId}/optimize`, { key: tenant.key, body: { query_id: queryId } })).body;
  const suggestion = {
    kind: 'create_index',
    query_id: queryId,
    summary: 'Create an index on public.a (x)',
    statement: 'CREATE INDEX CONCURRENTLY "a_x_idx" ON "public"."a" ("x")',
    target: { schema: 'public', table: 'a', index_name: 'a_x_idx', columns: ['x'] },
    estimated_improvement_pct: 90,
    cost_before: 1000,
    cost_after: 100,
    confidence: 'high',
    evidence: { method: 'hypopg' },
  };
  await report({ kind: 'analyze', outcome: 'completed', statements: [{ query_id: queryId, outcome: 'suggestion', detail: 'Index on a (x)' }], suggestions: [suggestion] });
  t.equal((await server.request('POST', `/v1/optimizations/${requested.id}/apply`, { key: tenant.key })).status, 202);
  await report({ kind: 'apply', outcome: 'applied', cost_after_apply: 12.5 });
  await server.request('POST', `/v1/databases/${databaseId}/optimize`, { key: tenant.key, body: { query_id: queryId } });
  await report({ kind: 'analyze', outcome: 'failed', error: 'permission denied', statements: [], suggestions: [] });

  while ((await dispatcher.tick()) > 0);
  const delivered = receiver.received.map((received) => received.json.type as string);
  t.same([...new Set(delivered)].sort(), [...eventTypes, testEventType].sort(), 'every event type was delivered');
  for (const received of receiver.received) {
    t.doesNotThrow(() => checkDelivery(received), `${received.json.type as string} ${received.body}`);
  }

  await t.test('and a delivery off its schema is caught', async (t) => {
    const alert = receiver.ofType('alert.triggered')[0]!;
    const withoutSeverity = JSON.parse(alert.body);
    delete withoutSeverity.data.object.severity;
    t.throws(() => checkDelivery({ ...alert, body: JSON.stringify(withoutSeverity) }), /severity/);
    const retyped = JSON.parse(receiver.ofType('database.status_changed')[0]!.body);
    retyped.type = 'alert.triggered';
    t.throws(() => checkDelivery({ headers: alert.headers, body: JSON.stringify(retyped) }), /not what the OpenAPI document/);
    t.throws(() => checkDelivery({ ...alert, headers: { ...alert.headers, 'webhook-signature': 'v2,abc' } }), /webhook-signature/);
    t.throws(() => checkDelivery({ ...alert, body: JSON.stringify({ ...withoutSeverity, type: 'alert.exploded' }) }), /no webhook for event type alert\.exploded/);
  });
});
