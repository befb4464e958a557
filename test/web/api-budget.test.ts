import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { apiBudget, getJson } from '../../web/api.js';

/** Answers with the hour's budget as the server counted it, after `delayMs`. */
function answer(response: ServerResponse, remaining: number, delayMs: number): void {
  setTimeout(() => {
    response.writeHead(200, { 'content-type': 'application/json', 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset': '1800000000' });
    response.end('{}');
  }, delayMs);
}

t.test('answers arriving out of order do not give back budget already spent', async (t) => {
  // The server counts /first before /second, but /second's answer reaches the page first.
  const server = createServer((request, response) => (request.url === '/v1/first' ? answer(response, 11, 150) : answer(response, 10, 0)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const first = getJson(`${base}/v1/first`);
  await new Promise((resolve) => setTimeout(resolve, 30));
  await Promise.all([first, getJson(`${base}/v1/second`)]);
  t.equal(apiBudget.remaining, 10, 'the fewest remaining of the same hour');
  t.equal(apiBudget.calls, 2);
});

t.test('a new hour starts the count again', async (t) => {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '99', 'x-ratelimit-reset': '1800003600' });
    response.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  await getJson(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/later`);
  t.equal(apiBudget.remaining, 99);
  t.equal(apiBudget.resetAt, 1_800_003_600_000);
});
