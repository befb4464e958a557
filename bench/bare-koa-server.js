// The baseline for bench/api.js: a bare Koa app with one JSON route and no middleware,
// in a process of its own like the real server. Listens on 127.0.0.1:<argv[2] or 0> and
// prints `listening <port>` on stdout once it accepts connections; SIGTERM stops it.
import { createServer } from 'node:http';
import Koa from 'koa';

const app = new Koa();
app.use((ctx) => {
  if (ctx.method === 'GET' && ctx.path === '/hello') {
    ctx.body = { hello: 'world' };
  }
});

const server = createServer(app.callback());
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  process.stdout.write(`listening ${port}\n`);
});

process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
});
