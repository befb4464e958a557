import t from 'tap';
import { createPasswordUser, signIn, type SignedIn } from '../../helpers/sign-in.js';
import { createTenant, startTestServer } from '../../helpers/test-server.js';

t.test('alerts and webhooks pages: frames by role, the served metric list, the API behind them', async (t) => {
  const server = await startTestServer({ now: new Date('2026-11-24T09:00:00Z') });
  t.teardown(server.close);
  const tenant = createTenant(server.services, server.clock.now);
  const viewer = await signIn(server, (await createPasswordUser(server.services, tenant.orgId, 'viewer', server.clock.now)).email);
  const member = await signIn(server, (await createPasswordUser(server.services, tenant.orgId, 'member', server.clock.now)).email);
  const page = async (path: string, session: SignedIn) => {
    const answer = await fetch(`${server.url}${path}`, { headers: { accept: 'text/html', cookie: session.headers().cookie! }, redirect: 'manual' });
    return { status: answer.status, html: await answer.text(), csp: answer.headers.get('content-security-policy')! };
  };
  const rule = { name: 'busy', metric: 'connections.total', operator: '>', threshold: 5 };
  const hook = { url: 'https://example.com/hooks' };

  await t.test('signed out, both pages lead to sign-in and back', async (t) => {
    for (const path of ['/alerts', '/webhooks']) {
      const answer = await fetch(`${server.url}${path}`, { headers: { accept: 'text/html' }, redirect: 'manual' });
      t.equal(answer.status, 303);
      t.equal(answer.headers.get('location'), `/login?${new URLSearchParams({ next: path })}`);
    }
  });

  await t.test('the navigation leads to both, each with its script under the nonce and nothing inline', async (t) => {
    for (const [path, script] of [
      ['/alerts', 'alerts-page'],
      ['/webhooks', 'webhooks-page'],
    ] as const) {
      const { status, html, csp } = await page(path, member);
      t.equal(status, 200, path);
      t.match(html, `<a href="${path}" aria-current="page">`);
      const nonce = /script-src 'nonce-([^']+)'/.exec(csp)![1]!;
      t.match(html, new RegExp(`<script src="/assets/web/${script}-[A-Z0-9]+\\.js" nonce="${nonce.replace(/[+/]/g, '\\$&')}" defer>`));
      t.notMatch(html, /<script(?![^>]*\bsrc=)/, 'no inline script');
      t.notMatch(html, /\son[a-z]+=/i, 'no inline handler');
    }
  });

  await t.test("the rules editor's metrics are those the served OpenAPI document accepts, in its order", async (t) => {
    const openapi = (await server.request('GET', '/v1/openapi.json')).body;
    const accepted = openapi.components.schemas.AlertRuleCreate.properties.metric.enum as string[];
    const { html } = await page('/alerts', member);
    const offered = [...html.matchAll(/<option value="([^"]+)" data-unit="([^"]+)"/g)].map((match) => match[1]);
    t.same(offered, accepted);
    t.ok(accepted.length > 10, `${accepted.length} metrics`);
    t.match(html, '<option value="cpu_usage" data-unit="percent"', 'each with its unit');
    t.match(html, '<option value="status" data-unit="status"');
  });

  await t.test('attack: a viewer gets no editing control, and the API refuses the calls anyway', async (t) => {
    const alerts = await page('/alerts', viewer);
    t.equal(alerts.status, 200);
    t.match(alerts.html, 'data-can-edit="false"');
    t.notMatch(alerts.html, 'id="rule-form"');
    t.notMatch(alerts.html, 'id="resolve-dialog"');
    const webhooks = await page('/webhooks', viewer);
    t.match(webhooks.html, 'data-can-edit="false"');
    t.notMatch(webhooks.html, 'id="webhook-form"');
    t.match((await page('/alerts', member)).html, 'id="rule-form"', 'a member gets the editor');
    t.match((await page('/webhooks', member)).html, 'id="webhook-form"');

    const asViewer = (method: string, path: string, body?: unknown) => server.request(method, path, { headers: viewer.headers(), body });
    t.equal((await asViewer('POST', '/v1/alerts/rules', rule)).status, 403);
    t.equal((await asViewer('POST', '/v1/webhooks', hook)).status, 403);
    const created = await server.request('POST', '/v1/alerts/rules', { headers: member.headers(), body: rule });
    t.equal(created.status, 201);
    t.equal((await asViewer('PUT', `/v1/alerts/rules/${created.body.id}`, { enabled: false })).status, 403);
    t.equal((await asViewer('DELETE', `/v1/alerts/rules/${created.body.id}`)).status, 403);
    t.equal((await asViewer('GET', '/v1/alerts/rules')).status, 200, 'but may read');
  });

  await t.test('attack: without the CSRF token (or with another session’s), the session cannot change rules or webhooks', async (t) => {
    const forged = (body: unknown, path: string, token?: string) =>
      server.request('POST', path, { headers: { cookie: member.headers().cookie!, ...(token !== undefined && { 'x-csrf-token': token }) }, body });
    for (const [path, body] of [
      ['/v1/alerts/rules', rule],
      ['/v1/webhooks', hook],
    ] as const) {
      t.equal((await forged(body, path)).status, 403, `${path} without a token`);
      t.equal((await forged(body, path, viewer.csrfToken)).status, 403, `${path} with another session's token`);
    }
    t.equal((await server.request('GET', '/v1/alerts/rules', { headers: { cookie: member.headers().cookie! } })).status, 200, 'reading needs no token');
  });
});
