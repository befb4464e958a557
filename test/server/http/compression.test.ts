import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import t from 'tap';
import { createPasswordUser, signIn } from '../../helpers/sign-in.js';
import { createTenant, startTestServer } from '../../helpers/test-server.js';

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The bytes as they came over the wire, before any decoding. */
  body: Buffer;
}

/** A request whose Accept-Encoding is exactly `acceptEncoding` (or absent), answered without decoding. */
function rawRequest(method: string, url: string, acceptEncoding: string | undefined, headers: Record<string, string> = {}, body?: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { method, headers: { ...headers, ...(acceptEncoding !== undefined && { 'accept-encoding': acceptEncoding }) } }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => resolve({ status: answer.statusCode!, headers: answer.headers, body: Buffer.concat(chunks) }));
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

const rawGet = (url: string, acceptEncoding: string | undefined, headers: Record<string, string> = {}): Promise<RawAnswer> => rawRequest('GET', url, acceptEncoding, headers);

const decoded = (answer: RawAnswer): Buffer =>
  answer.headers['content-encoding'] === 'br' ? brotliDecompressSync(answer.body) : answer.headers['content-encoding'] === 'gzip' ? gunzipSync(answer.body) : answer.body;

t.test('compression: JSON and static files negotiated by Accept-Encoding, pages never', async (t) => {
  const server = await startTestServer({ now: new Date('2026-11-24T09:00:00Z') });
  t.teardown(server.close);
  const openApi = `${server.url}/v1/openapi.json`;
  const plain = await rawGet(openApi, undefined);
  t.equal(plain.status, 200);
  t.equal(plain.headers['content-encoding'], undefined, 'no Accept-Encoding: sent as is');
  t.equal(plain.headers.vary, 'Accept-Encoding', 'a cache is told the answer depends on Accept-Encoding');
  const document = JSON.parse(plain.body.toString('utf8')) as { openapi: string };
  t.match(document.openapi, /^3\.1/);

  await t.test('a large JSON answer: brotli when accepted, else gzip; the same JSON decoded, a fraction of the bytes', async (t) => {
    for (const [acceptEncoding, expected] of [
      ['gzip, deflate, br, zstd', 'br'],
      ['gzip, deflate', 'gzip'],
      ['br;q=0, gzip', 'gzip'],
      ['gzip;q=0, identity', undefined],
      ['*', 'br'],
      ['', undefined],
    ] as const) {
      const answer = await rawGet(openApi, acceptEncoding);
      t.equal(answer.headers['content-encoding'], expected, acceptEncoding);
      t.equal(answer.headers.vary, 'Accept-Encoding', acceptEncoding);
      t.match(answer.headers['content-type'], /^application\/json/, acceptEncoding);
      t.equal(Number(answer.headers['content-length']), answer.body.length, `${acceptEncoding}: its length is the bytes sent`);
      t.same(decoded(answer), plain.body, `${acceptEncoding}: decodes to the same document`);
      if (expected !== undefined) t.ok(answer.body.length < plain.body.length / 4, `${acceptEncoding}: ${answer.body.length} of ${plain.body.length} bytes`);
    }
  });

  await t.test('a page of a list (serialized before it is sent) is compressed as well', async (t) => {
    const tenant = createTenant(server.services, server.clock.now);
    for (let index = 0; index < 8; index++) {
      await server.request('POST', '/v1/databases', { key: tenant.key, body: { name: `db-${index}`, type: 'postgresql', connection: { host: 'h', database: 'd', username: 'u' } } });
    }
    const answer = await rawGet(`${server.url}/v1/databases`, 'gzip', { authorization: `Bearer ${tenant.key}` });
    t.equal(answer.headers['content-encoding'], 'gzip');
    const page = JSON.parse(decoded(answer).toString('utf8')) as { data: { name: string }[]; pagination: { total: number } };
    t.equal(page.pagination.total, 8);
    t.same(page.data.map((database) => database.name).sort(), Array.from({ length: 8 }, (_, index) => `db-${index}`));
  });

  await t.test('a JSON answer under the floor, an error included, is sent as is', async (t) => {
    for (const path of ['/healthz', '/v1/databases']) {
      const answer = await rawGet(`${server.url}${path}`, 'br, gzip', { accept: 'application/json' });
      t.equal(answer.headers['content-encoding'], undefined, path);
      t.equal(answer.headers.vary, 'Accept-Encoding', path);
      t.ok(answer.body.length < 1024, path);
      t.type(JSON.parse(answer.body.toString('utf8')), 'object', path);
    }
  });

  await t.test("an answer to anything but GET or HEAD is sent as is, however large: it may carry a secret beside the request's text (BREACH)", async (t) => {
    const tenant = createTenant(server.services, server.clock.now);
    const url = `https://93.184.215.14/hooks/${'a'.repeat(1500)}`;
    const answer = await rawRequest('POST', `${server.url}/v1/webhooks`, 'br, gzip', { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' }, JSON.stringify({ url, description: 'x'.repeat(500) }));
    t.equal(answer.status, 201);
    t.equal(answer.headers['content-encoding'], undefined);
    t.ok(answer.body.length > 2048, `${answer.body.length} bytes, over the floor`);
    const created = JSON.parse(answer.body.toString('utf8')) as { id: string; url: string; secret: string };
    t.equal(created.url, url);
    t.match(created.secret, /^whsec_/);
    const read = await rawGet(`${server.url}/v1/webhooks/${created.id}`, 'gzip', { authorization: `Bearer ${tenant.key}` });
    t.equal(read.headers['content-encoding'], 'gzip', 'the same endpoint read back (no secret) is compressed');
    t.notMatch(decoded(read).toString('utf8'), created.secret);
  });

  await t.test("a signed-in page is never compressed (it holds the CSRF token beside the request's text: BREACH)", async (t) => {
    const tenant = createTenant(server.services, server.clock.now);
    const { email } = await createPasswordUser(server.services, tenant.orgId, 'viewer', server.clock.now);
    const session = await signIn(server, email);
    const answer = await rawGet(`${server.url}/?echo=${'x'.repeat(2000)}`, 'br, gzip', { accept: 'text/html', cookie: session.headers().cookie! });
    t.equal(answer.status, 200);
    t.equal(answer.headers['content-encoding'], undefined);
    t.match(answer.body.toString('utf8'), session.csrfToken);
  });

  await t.test('static files: compressed once, each encoding served to those who accept it; a tiny one as is', async (t) => {
    const page = await rawGet(`${server.url}/login`, undefined, { accept: 'text/html' });
    const hrefs = [...page.body.toString('utf8').matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1]!);
    const stylesheet = hrefs.find((href) => href.startsWith('/assets/dbmon.css'))!;
    const icon = hrefs.find((href) => href.startsWith('/assets/icon.svg'))!;
    t.ok(stylesheet !== undefined && icon !== undefined, hrefs.join(' '));
    const original = (await rawGet(`${server.url}${stylesheet}`, undefined)).body;
    for (const [acceptEncoding, expected] of [
      ['gzip, deflate, br', 'br'],
      ['gzip', 'gzip'],
      [undefined, undefined],
    ] as const) {
      const answer = await rawGet(`${server.url}${stylesheet}`, acceptEncoding);
      t.equal(answer.headers['content-encoding'], expected, String(acceptEncoding));
      t.equal(answer.headers.vary, 'Accept-Encoding', String(acceptEncoding));
      t.equal(answer.headers['cache-control'], 'public, max-age=31536000, immutable');
      t.match(answer.headers['content-type'], /^text\/css/);
      t.same(decoded(answer), original, String(acceptEncoding));
      if (expected !== undefined) t.ok(answer.body.length < original.length / 3, `${expected}: ${answer.body.length} of ${original.length} bytes`);
    }
    const tiny = await rawGet(`${server.url}${icon}`, 'br, gzip');
    t.equal(tiny.headers['content-encoding'], undefined, 'the icon is under the floor');
    t.equal(tiny.headers.vary, undefined, 'and the same for everyone');
    t.match(tiny.body.toString('utf8'), '<svg');
  });
});
