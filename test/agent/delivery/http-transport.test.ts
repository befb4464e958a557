import { once } from 'node:events';
import { createServer } from 'node:http';
import { join } from 'node:path';
import t from 'tap';
import { AuthRefusedError, RejectedBatchError, RetryableError } from '../../../agent/delivery/delivery-errors.js';
import { HttpTransport, retryAfterMs } from '../../../agent/delivery/http-transport.js';
import { freePort, startBatchReceiver } from '../../helpers/batch-receiver.js';
import { makeSnapshot } from '../../helpers/snapshot-factory.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** One sample of `databaseId`, stamped `index` seconds after a fixed start. */
function sample(databaseId: string, index: number) {
  return { database_id: databaseId, snapshot: makeSnapshot(new Date(Date.UTC(2026, 10, 22, 8, 0, index))) };
}

const agentKey = 'dbm_sak_secretsecretsecretsecretsecret123456';
const batch = { batch_id: 'b'.repeat(32), spool_dropped_total: 7, samples: [sample('db_a', 1)] };

function transportTo(url: string, timeoutMs = 2000): HttpTransport {
  return new HttpTransport({ serverUrl: `${url}/`, agentKey, version: '1.2.3', hostname: 'host-1', timeoutMs });
}

t.test('the HTTP transport speaks the agent protocol', async (t) => {
  const receiver = await startBatchReceiver({ dbFile: join(tempDir(t), 'received.db') });
  t.teardown(receiver.close);
  const transport = transportTo(receiver.url);

  await t.test('a batch is posted with the protocol headers and acknowledged', async (t) => {
    const ack = await transport.sendBatch(batch);
    t.same(ack, { batch_id: batch.batch_id, stored: 1, duplicate: false, rejected: 0 });
    const { headers, spoolDroppedTotal } = receiver.requests.at(-1)!;
    t.equal(headers.authorization, `Bearer ${agentKey}`);
    t.equal(headers['user-agent'], 'dbmon-agent/1.2.3');
    t.equal(headers['x-dbmon-agent-hostname'], 'host-1');
    t.equal(headers['content-type'], 'application/json');
    t.equal(spoolDroppedTotal, 7);
    t.same(await transport.sendBatch(batch), { batch_id: batch.batch_id, stored: 0, duplicate: true, rejected: 0 }, 'a resend is a duplicate');
  });

  await t.test('statuses map to what the pusher should do', async (t) => {
    const cases = [
      { status: 400, error: RejectedBatchError },
      { status: 413, error: RejectedBatchError },
      { status: 401, error: AuthRefusedError },
      { status: 403, error: AuthRefusedError },
      { status: 500, error: RetryableError },
      { status: 503, error: RetryableError },
      { status: 404, error: RetryableError },
    ];
    for (const { status, error } of cases) {
      receiver.plan({ status, body: { error: { type: 'invalid_request', code: 'invalid_parameter', message: `scripted ${status}` } } });
      const failure = await transport.sendBatch(batch).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      t.type(failure, error, `${status} → ${error.name}`);
      t.match((failure as Error).message, `${status} invalid_request (invalid_parameter): scripted ${status}`);
      t.notMatch((failure as Error).message, agentKey, 'the key never appears in a message');
    }
  });

  await t.test('429 carries Retry-After', async (t) => {
    receiver.plan({ status: 429, headers: { 'retry-after': '17' } });
    const failure = (await transport.sendBatch(batch).catch((caught: unknown) => caught)) as RetryableError;
    t.type(failure, RetryableError);
    t.equal(failure.retryAfterMs, 17_000);
  });

  await t.test('assignments are fetched and checked', async (t) => {
    const assignments = {
      agent_id: 'agent_1',
      databases: [
        {
          id: 'db_abc',
          name: 'orders',
          type: 'postgresql',
          interval_seconds: 60,
          connection: { host: '127.0.0.1', port: 5432, database: 'orders', username: 'dbmon', password: null, ssl: false },
        },
      ],
    };
    receiver.setAssignments(assignments);
    t.same(await transport.fetchAssignments(), assignments);
    receiver.setAssignments({ agent_id: 'agent_1', databases: [{ id: 'db_abc' }] });
    await t.rejects(transport.fetchAssignments(), RetryableError, 'an unreadable list is retried, not applied');
  });

  await t.test('a server that does not answer in time is retryable', async (t) => {
    receiver.plan({ store: true, hold: () => new Promise((resolve) => setTimeout(resolve, 500)) });
    await t.rejects(transportTo(receiver.url, 100).sendBatch(batch), { name: 'RetryableError', message: /no answer within 100 ms/ });
  });
});

t.test('a server that is down is retryable', async (t) => {
  const url = `http://127.0.0.1:${await freePort()}`;
  await t.rejects(transportTo(url).sendBatch(batch), { name: 'RetryableError', message: /ECONNREFUSED/ });
  await t.rejects(transportTo(url).fetchAssignments(), { name: 'RetryableError', message: /ECONNREFUSED/ });
});

t.test('an answer cut short is retryable, not read as a shorter body', async (t) => {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
    response.write('{"batch_id":');
    setTimeout(() => response.socket?.destroy(), 20);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  const { port } = server.address() as { port: number };
  await t.rejects(transportTo(`http://127.0.0.1:${port}`).sendBatch(batch), { name: 'RetryableError', message: /^POST \/v1\/agent\/samples: / });
});

t.test('Retry-After: seconds, HTTP date, or the body retry_after', async (t) => {
  const now = Date.parse('2026-11-22T10:00:00Z');
  t.equal(retryAfterMs('30', undefined, now), 30_000);
  t.equal(retryAfterMs('Sun, 22 Nov 2026 10:01:00 GMT', undefined, now), 60_000);
  t.equal(retryAfterMs(null, { error: { type: 'rate_limit_exceeded', message: 'x', retry_after: now / 1000 + 5 } }, now), 5000);
  t.equal(retryAfterMs('garbage', undefined, now), undefined);
});
