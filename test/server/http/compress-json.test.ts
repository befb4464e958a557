import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import t from 'tap';
import { compressJson } from '../../../server/http/compress-json.js';

/** GET `/?type=<type>` with Accept-Encoding: gzip; answers with the Content-Encoding sent. */
function encodingFor(port: number, type: string): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: `/?type=${encodeURIComponent(type)}`, headers: { 'Accept-Encoding': 'gzip' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.headers['content-encoding']));
    });
    req.on('error', reject);
    req.end();
  });
}

t.test('JSON answers are told from others by media type, however many types have been seen', async (t) => {
  const app = new Koa();
  app.use(compressJson());
  app.use((ctx) => {
    ctx.type = String(ctx.query.type);
    ctx.body = Buffer.from(JSON.stringify({ padding: 'x'.repeat(4096) }));
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  t.teardown(() => server.close());
  const { port } = server.address() as AddressInfo;

  for (let round = 0; round < 2; round++) {
    t.equal(await encodingFor(port, 'application/json'), 'gzip', `round ${round}: JSON`);
    t.equal(await encodingFor(port, 'application/json; charset=utf-8'), 'gzip', `round ${round}: JSON with a charset`);
    t.equal(await encodingFor(port, 'text/plain'), undefined, `round ${round}: not JSON`);
    for (let i = 0; i < 120; i++) await encodingFor(port, `application/x-${i}`);
  }
});
