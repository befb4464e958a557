import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import t from 'tap';
import { sendSerializedList, serializeList, type SerializedList } from '../../../server/http/paging.js';

/** GET `path` with this Host header; answers with the Link header. */
function linkOf(port: number, host: string, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { Host: host } }, (res) => {
      res.resume();
      res.on('end', () => resolve(String(res.headers.link)));
    });
    req.on('error', reject);
    req.end();
  });
}

t.test('a list sent many times carries the Link header of each request', async (t) => {
  const paging = { page: 2, per_page: 10 };
  let list: SerializedList = serializeList([], 25, paging);
  const app = new Koa();
  app.use((ctx) => sendSerializedList(ctx, list, paging));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  t.teardown(() => server.close());
  const { port } = server.address() as AddressInfo;

  const expected = (host: string, kept: string, last: number) =>
    [`<http://${host}/v1/things?${kept}per_page=10&page=3>; rel="next"`, `<http://${host}/v1/things?${kept}per_page=10&page=1>; rel="prev"`, `<http://${host}/v1/things?${kept}per_page=10&page=1>; rel="first"`, `<http://${host}/v1/things?${kept}per_page=10&page=${last}>; rel="last"`].join(', ');
  t.equal(await linkOf(port, 'a.example', '/v1/things?per_page=10&page=2'), expected('a.example', '', 3));
  t.equal(await linkOf(port, 'b.example:8080', '/v1/things?per_page=10&page=2'), expected('b.example:8080', '', 3), 'another host, its own links');
  t.equal(await linkOf(port, 'a.example', '/v1/things?page=2&kind=x&per_page=10'), expected('a.example', 'kind=x&', 3), 'another query keeps its filters');
  for (let i = 0; i < 150; i++) await linkOf(port, `h${i}.example`, '/v1/things?per_page=10&page=2');
  t.equal(await linkOf(port, 'a.example', '/v1/things?per_page=10&page=2'), expected('a.example', '', 3), 'right after more hosts than are kept');

  list = serializeList([], 45, paging);
  t.equal(await linkOf(port, 'a.example', '/v1/things?per_page=10&page=2'), expected('a.example', '', 5), 'a new list (another total) has its own links');
});
