import { gzipSync } from 'node:zlib';
import t from 'tap';
import { createPasswordUser, signIn } from '../../helpers/sign-in.js';
import { createTenant, startTestServer } from '../../helpers/test-server.js';

const assetReferences = (html: string) => [...html.matchAll(/<(?:script|link)[^>]*(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1]!);

t.test('dashboard pages: server-rendered frame, assets, CSP', async (t) => {
  const server = await startTestServer({ now: new Date('2026-11-24T09:00:00Z') });
  t.teardown(server.close);
  const tenant = createTenant(server.services, server.clock.now, 'pro', 'Acme <Ops> & Co');
  const { email } = await createPasswordUser(server.services, tenant.orgId, 'viewer', server.clock.now);
  const session = await signIn(server, email);
  const created = await server.request('POST', '/v1/databases', {
    key: tenant.key,
    body: { name: '<img src=x onerror=alert(1)>', type: 'postgresql', connection: { host: '127.0.0.1', database: 'app', username: 'app' } },
  });
  const databaseId = created.body.id as string;
  const get = (path: string) => fetch(`${server.url}${path}`, { headers: { accept: 'text/html', cookie: session.headers().cookie! }, redirect: 'manual' });

  await t.test('signed out, the overview and a database page lead to sign-in and back', async (t) => {
    for (const path of ['/', `/databases/${databaseId}`]) {
      const answer = await fetch(`${server.url}${path}`, { headers: { accept: 'text/html' }, redirect: 'manual' });
      t.equal(answer.status, 303);
      t.equal(answer.headers.get('location'), `/login?${new URLSearchParams({ next: path })}`);
    }
  });

  await t.test('the overview: navigation to pages that exist, the organization named (escaped), its script under the nonce', async (t) => {
    const answer = await get('/');
    t.equal(answer.status, 200);
    const html = await answer.text();
    t.match(html, '<h1>Overview</h1>');
    t.match(html, 'Acme &lt;Ops> &amp; Co', 'the organization name is escaped');
    t.match(html, '<a href="/" aria-current="page">Overview</a>');
    const links = [...html.matchAll(/<nav[\s\S]*?<\/nav>/g)][0]![0].matchAll(/href="([^"]+)"/g);
    for (const [, href] of links) t.equal((await get(href!)).status, 200, `the navigation's ${href} is a page`);
    const nonce = /script-src 'nonce-([^']+)'/.exec(answer.headers.get('content-security-policy')!)![1]!;
    t.match(html, new RegExp(`<script src="/assets/web/overview-[A-Z0-9]+\\.js" nonce="${nonce.replace(/[+/]/g, '\\$&')}" defer>`));
    t.notMatch(html, /<script(?![^>]*\bsrc=)/, 'no inline script');
    t.notMatch(html, /\son[a-z]+=/i, 'no inline handler');
    t.match(html, `<meta name="csrf-token" content="${session.csrfToken}"/>`);
  });

  await t.test("a database page names its database, escaped; another organization's database is not found", async (t) => {
    const answer = await get(`/databases/${databaseId}`);
    t.equal(answer.status, 200);
    const html = await answer.text();
    t.match(html, '<h1>&lt;img src=x onerror=alert(1)></h1>');
    t.match(html, `data-database-id="${databaseId}"`);
    t.match(html, /<link rel="stylesheet" href="\/assets\/web\/uplot-[A-Z0-9]+\.css"\/>/);
    t.match(html, /<script src="\/assets\/web\/database-page-[A-Z0-9]+\.js"/);

    const other = createTenant(server.services, server.clock.now);
    const theirs = await server.request('POST', '/v1/databases', {
      key: other.key,
      body: { name: 'theirs', type: 'mysql', connection: { host: '127.0.0.1', database: 'app', username: 'app' } },
    });
    const refused = await get(`/databases/${theirs.body.id}`);
    t.equal(refused.status, 404, 'attack: a database of another organization');
    t.notMatch(await refused.text(), 'theirs');
  });

  await t.test('assets: hashed names, a year of immutable cache, right types, small when compressed', async (t) => {
    const pages = await Promise.all(['/', `/databases/${databaseId}`].map(async (path) => (await get(path)).text()));
    const hrefs = [...new Set(pages.flatMap(assetReferences))];
    let compressed = 0;
    for (const href of hrefs) {
      const answer = await fetch(`${server.url}${href}`);
      t.equal(answer.status, 200, href);
      t.equal(answer.headers.get('cache-control'), 'public, max-age=31536000, immutable', href);
      t.match(answer.headers.get('content-type'), href.includes('.js') ? 'text/javascript' : href.includes('.css') ? 'text/css' : 'image/svg+xml', href);
      compressed += gzipSync(Buffer.from(await answer.arrayBuffer())).length;
    }
    t.ok(hrefs.filter((href) => href.startsWith('/assets/web/')).every((href) => /-[A-Z0-9]{8}\.(js|css)$/.test(href)), 'built files carry their hash in the name');
    t.ok(compressed < 150_000, `all scripts and styles of both pages: ${compressed} bytes compressed, under 150 kB`);
    t.equal((await fetch(`${server.url}/assets/web/overview.js`, { headers: { accept: 'text/html' } })).status, 404, 'only the hashed name is served');
  });
});
