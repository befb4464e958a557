// The reference for bench/api.js (#14 goal 6): a bare Koa app with no middleware that answers
// `GET /page` with the same bytes dbmon answers `GET /v1/databases?per_page=20` with, held in
// memory, and the same five contract headers (X-Request-Id, the three X-RateLimit-*, Link), made
// per request as dbmon makes them. What dbmon costs beyond it is authentication, rate limiting,
// routing, validation and the middleware chain.
//
//   node bench/bare-koa-server.js <page.json>    page.json: {"body": "<the response body>", "link": "<its Link header>"}
//
// Listens on 127.0.0.1 on a free port and prints `listening <port>` on stdout once it accepts
// connections; SIGTERM stops it.
import { Buffer } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import Koa from 'koa';

const page = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const body = Buffer.from(page.body);
const hourlyLimit = 100_000_000;
let remaining = hourlyLimit;

const app = new Koa();
app.use((ctx) => {
  if (ctx.method === 'GET' && ctx.path === '/page') {
    const nowMs = Date.now();
    remaining = Math.max(0, remaining - 1);
    ctx.set('X-Request-Id', randomUUID());
    ctx.set('X-RateLimit-Limit', String(hourlyLimit));
    ctx.set('X-RateLimit-Remaining', String(remaining));
    ctx.set('X-RateLimit-Reset', String(Math.ceil(nowMs / 3_600_000) * 3600));
    ctx.set('Link', page.link);
    ctx.type = 'application/json';
    ctx.body = body;
  }
});

const server = createServer(app.callback());
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  process.stdout.write(`listening ${port}\n`);
});

process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
});
