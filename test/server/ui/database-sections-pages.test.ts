import t from 'tap';
import { makeSnapshot } from '../../helpers/snapshot-factory.js';
import { createPasswordUser, signIn } from '../../helpers/sign-in.js';
import { createServiceKey, createTenant, startTestServer } from '../../helpers/test-server.js';

const hostileQuery = "SELECT '</script><img src=x onerror=alert(1)>' FROM orders WHERE id = $1";
const hostileStatement = 'CREATE INDEX CONCURRENTLY "</script><img src=x onerror=alert(2)>" ON orders (customer_id)';

t.test("database page sections: server-rendered, escaped, in the viewer's organization, buttons only for those who may write", async (t) => {
  const now = new Date('2026-11-24T09:00:00Z');
  const server = await startTestServer({ now });
  t.teardown(server.close);
  const tenant = createTenant(server.services, now, 'pro');
  const agentKey = createServiceKey(server.services, tenant.orgId, now, { scopes: ['agent'], account: 'sections-agent' });
  const agentId: string = (await server.request('GET', '/v1/agent/assignments', { key: agentKey })).body.agent_id;
  const created = await server.request('POST', '/v1/databases', {
    key: tenant.key,
    body: { name: 'orders', type: 'postgresql', agent_id: agentId, connection: { host: 'db.internal', database: 'shop', username: 'app', password: 'hunter2-secret' } },
  });
  const databaseId = created.body.id as string;
  for (const [index, minutesAgo] of [30, 20].entries()) {
    const statements = [{ query_id_source: '4242', query: hostileQuery, calls: 10 * (index + 1), total_time_ms: 900, max_time_ms: 120, rows: 10 }];
    const snapshot = makeSnapshot(new Date(now.getTime() - minutesAgo * 60_000), { statements });
    const stored = await server.request('POST', '/v1/agent/samples', { key: agentKey, body: { batch_id: `sections-batch-${String(index).padStart(6, "0")}`, samples: [{ database_id: databaseId, snapshot }] } });
    t.equal(stored.body.stored, 1, stored.text);
  }
  const queryId = (await server.request('GET', `/v1/databases/${databaseId}/queries`, { key: tenant.key })).body.data[0].id as string;
  const requested = server.services.optimizations.request(tenant.orgId, databaseId, { query_id: queryId, auto_apply: false }, now);
  server.db
    .prepare(`UPDATE optimizations SET status = 'ready', kind = 'create_index', statement = ?, summary = 'Index orders (customer_id)', cost_before = 1000, cost_after = 8, estimated_improvement_pct = 99.2, evidence = ? WHERE id = ?`)
    .run(hostileStatement, JSON.stringify({ plan_before: 'Seq Scan on orders  (cost=0..1000 rows=5)', plan_after: 'Index Scan using i on orders  (cost=0..8 rows=5)' }), requested.id);

  const member = await signIn(server, (await createPasswordUser(server.services, tenant.orgId, 'member', now)).email);
  const viewer = await signIn(server, (await createPasswordUser(server.services, tenant.orgId, 'viewer', now)).email);
  const page = async (session: typeof member, path: string) => {
    const answer = await fetch(`${server.url}${path}`, { headers: { accept: 'text/html', cookie: session.headers().cookie! }, redirect: 'manual' });
    return { status: answer.status, html: await answer.text() };
  };

  await t.test('attack: statement text and a suggested statement holding markup are text, never markup', async (t) => {
    for (const path of [`/databases/${databaseId}`, `/databases/${databaseId}/queries/${queryId}`]) {
      const { status, html } = await page(member, path);
      t.equal(status, 200, path);
      t.notMatch(html, '<img src=x', `${path}: no markup from the data`);
      t.notMatch(html, /<\/script><img/, path);
      t.match(html, "<code>SELECT '&lt;/script>&lt;img src=x onerror=alert(1)>' FROM orders WHERE id = $1</code>", `${path}: the text shown, escaped`);
    }
    const { html } = await page(member, `/databases/${databaseId}`);
    t.match(html, 'CREATE INDEX CONCURRENTLY &quot;&lt;/script>&lt;img src=x onerror=alert(2)>&quot; ON orders (customer_id)', 'the confirmation names the statement, escaped');
    t.notMatch(html, /<script(?![^>]*\bsrc=)/, 'no inline script');
    t.notMatch(html, /<[^>]*\son[a-z]+=/i, 'no inline handler');
  });

  await t.test('the sections show real figures; the password is never on the page', async (t) => {
    const { html } = await page(member, `/databases/${databaseId}`);
    t.match(html, '<h2 id="slow-queries-title">Slow queries</h2>');
    t.match(html, /<td class="number">1\.80 s<\/td><td class="number">60\.0 ms<\/td><td class="number">30<\/td><td class="number">120\.0 ms<\/td>/, 'total, mean, calls, max with units');
    t.match(html, 'planner cost 1000 → 8 (99.2 % lower)');
    t.match(html, 'Seq Scan on orders');
    t.match(html, '<code>connections.used_pct > 90</code> for 300 s</td><td>warning</td><td>every database</td>', 'the stock rules that watch every database');
    const stockRule = (await server.request('GET', '/v1/alerts/rules', { headers: member.headers() })).body.data.find((rule: { metric: string }) => rule.metric === 'connections.used_pct');
    t.match(html, `<th scope="row"><a href="/alerts?edit_rule=${stockRule.id}#rule-form">${stockRule.name}</a></th>`, 'each rule leads to its editor');
    t.match(html, 'A password is set; it is never shown.');
    t.notMatch(html, 'hunter2-secret');
    t.match(html, 'name="clear_password"', 'a way to remove the stored password');
    t.match(html, 'aria-sort="descending"><a href="?queries_range=24h&amp;queries_sort=total_time#slow-queries">Total time</a>');
    const byCalls = await page(member, `/databases/${databaseId}?queries_range=1h&queries_sort=calls`);
    t.match(byCalls.html, 'aria-sort="descending"><a href="?queries_range=1h&amp;queries_sort=calls#slow-queries">Calls</a>', 'sorted by calls over 1 h');
    const detail = await page(member, `/databases/${databaseId}/queries/${queryId}?range=1h`);
    t.match(detail.html, 'Calls: up to 20 calls per slice', 'its calls over time');
    t.match(detail.html, 'id="request-optimization"');
  });

  await t.test('attack: a viewer sees no button that changes anything, and the API refuses them anyway', async (t) => {
    const { html } = await page(viewer, `/databases/${databaseId}`);
    t.notMatch(html, 'data-apply=', 'no apply');
    t.notMatch(html, 'connection-form', 'no connection form');
    t.notMatch(html, 'data-monitoring=', 'no pause');
    t.notMatch(html, 'edit_rule=', 'no way to the rules editor');
    t.match(html, '<dt>Password</dt><dd>set</dd>');
    t.notMatch((await page(viewer, `/databases/${databaseId}/queries/${queryId}`)).html, 'request-optimization');
    const apply = await server.request('POST', `/v1/optimizations/${requested.id}/apply`, { headers: viewer.headers() });
    t.equal(apply.status, 403, 'apply refused');
    const edit = await server.request('PUT', `/v1/databases/${databaseId}`, { headers: viewer.headers(), body: { monitoring: { enabled: false } } });
    t.equal(edit.status, 403, 'edit refused');
    const optimize = await server.request('POST', `/v1/databases/${databaseId}/optimize`, { headers: viewer.headers(), body: { query_id: queryId } });
    t.equal(optimize.status, 403, 'request refused');
  });

  await t.test('dismiss: a viewer is refused, a member dismisses a ready optimization once, and it no longer applies', async (t) => {
    t.match((await page(member, `/databases/${databaseId}`)).html, `data-dismiss="${requested.id}"`, 'a dismiss button beside apply');
    t.notMatch((await page(viewer, `/databases/${databaseId}`)).html, 'data-dismiss=', 'none for a viewer');
    const refused = await server.request('POST', `/v1/optimizations/${requested.id}/dismiss`, { headers: viewer.headers() });
    t.equal(refused.status, 403, 'attack: a viewer dismissing');
    const dismissed = await server.request('POST', `/v1/optimizations/${requested.id}/dismiss`, { headers: member.headers() });
    t.equal(dismissed.status, 200, dismissed.text);
    t.equal(dismissed.body.status, 'dismissed');
    const again = await server.request('POST', `/v1/optimizations/${requested.id}/dismiss`, { headers: member.headers() });
    t.equal(again.status, 409);
    t.equal(again.body.error.code, 'already_dismissed');
    const apply = await server.request('POST', `/v1/optimizations/${requested.id}/apply`, { headers: member.headers() });
    t.equal(apply.body.error.code, 'optimization_dismissed');
    const { html } = await page(member, `/databases/${databaseId}`);
    t.match(html, '>dismissed</span>');
    t.notMatch(html, 'data-apply=', 'no apply once dismissed');
  });

  await t.test("attack: another organization's database and statements are not found", async (t) => {
    const other = createTenant(server.services, now);
    const theirs = await server.request('POST', '/v1/databases', { key: other.key, body: { name: 'theirs', type: 'postgresql', connection: { host: 'h', database: 'd', username: 'u' } } });
    for (const path of [`/databases/${theirs.body.id}`, `/databases/${theirs.body.id}/queries/${queryId}`]) {
      const refused = await page(member, path);
      t.equal(refused.status, 404, path);
      t.notMatch(refused.html, 'theirs');
    }
    const outsider = await signIn(server, (await createPasswordUser(server.services, other.orgId, 'admin', now)).email);
    for (const path of [`/databases/${databaseId}`, `/databases/${databaseId}/queries/${queryId}`]) {
      const refused = await page(outsider, path);
      t.equal(refused.status, 404, `${path} for another organization's admin`);
      t.notMatch(refused.html, 'onerror', 'nothing of the statement');
    }
    t.equal((await page(member, `/databases/${databaseId}/queries/query_unknown`)).status, 404, 'an unknown statement');
  });
});
