import { connect } from 'node:net';
import t from 'tap';
import { createTenant, startTestServer } from '../helpers/test-server.js';

/** Writes `request` as it is onto a new connection and collects what comes back until the server closes it. */
function rawExchange(url: string, request: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
    socket.setTimeout(5000, () => socket.destroy(new Error(`no close within 5 s; got ${JSON.stringify(answer)}`)));
  });
}

function parseResponse(text: string): { status: number; headers: Map<string, string>; body: any } { // eslint-disable-line @typescript-eslint/no-explicit-any -- arbitrary JSON
  const [head = '', body = ''] = text.split('\r\n\r\n', 2);
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers = new Map(headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: parsed };
}

t.test("requests Node's parser refuses get the contract's body, a request id and a JSON log record", async (t) => {
  const server = await startTestServer();
  t.teardown(server.close);
  const { key } = createTenant(server.services, server.clock.now);
  const stderr: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
    stderr.push(String(chunk));
    return write(chunk, ...rest);
  }) as typeof process.stderr.write;
  t.teardown(() => {
    process.stderr.write = write;
  });

  const cases = [
    { name: 'a 20 kB query string', status: 431, code: 'headers_too_large', request: `GET /v1/databases?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n` },
    { name: 'a 17 kB header', status: 431, code: 'headers_too_large', request: `GET /v1/databases HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(17_000)}\r\n\r\n` },
    {
      name: 'a malformed chunked body',
      status: 400,
      code: 'malformed_request',
      request:
        `POST /v1/databases HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
        'Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
    },
    { name: 'a garbled request line', status: 400, code: 'malformed_request', request: 'GET /v1 databases HTTP/1.1 extra\r\n\r\n' },
  ];
  for (const example of cases) {
    await t.test(example.name, async (t) => {
      const logged = server.logLines.length;
      const response = parseResponse(await rawExchange(server.url, example.request));
      t.equal(response.status, example.status);
      t.equal(response.headers.get('content-type'), 'application/json; charset=utf-8');
      t.equal(response.body?.error?.type, 'invalid_request');
      t.equal(response.body?.error?.code, example.code);
      const requestId = response.headers.get('x-request-id');
      t.match(requestId, /^[0-9a-f-]{36}$/, 'answered with a request id');
      const records = server.logLines.slice(logged).map((line) => JSON.parse(line) as Record<string, unknown>);
      const record = records.find((line) => line.msg === 'malformed HTTP request refused');
      t.ok(record, 'logged through the JSON logger');
      t.equal(record?.requestId, requestId, 'under the same request id');
      t.equal(record?.status, example.status);
    });
  }
  t.same(stderr, [], 'nothing written to stderr outside the JSON log');

  await t.test('the server still answers afterwards', async (t) => {
    t.equal((await server.request('GET', '/v1/databases', { key })).status, 200);
  });
});
