import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { HttpTransport } from '../../../agent/delivery/http-transport.js';
import { defaultSendLimits, Pusher, type PusherOptions } from '../../../agent/delivery/pusher.js';
import { maxSpoolAgeSeconds } from '../../../common/agent-protocol/limits.js';
import { openSpool, type Spool } from '../../../agent/delivery/spool.js';
import { freePort, startBatchReceiver, type BatchReceiverOptions } from '../../helpers/batch-receiver.js';
import { captureLogger } from '../../helpers/capture-logger.js';
import { makeSnapshot } from '../../helpers/snapshot-factory.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { waitUntil } from '../../helpers/wait-until.js';

/** One sample of `databaseId`, stamped `index` seconds after a fixed start. */
function sample(databaseId: string, index: number) {
  return { database_id: databaseId, snapshot: makeSnapshot(new Date(Date.UTC(2026, 10, 22, 8, 0, index))) };
}

const agentKey = 'dbm_sak_pushertestkeypushertestkey1234567';
type Teardown = { teardown(fn: () => unknown): void };

function setUp(t: Teardown, options: { maxSamples?: number; spoolNow?: () => Date; receiver?: Partial<BatchReceiverOptions> } = {}) {
  const dir = tempDir(t);
  const spool = openSpool(join(dir, 'spool.db'), { maxSamples: options.maxSamples ?? 1000, ...(options.spoolNow && { now: options.spoolNow }) });
  t.teardown(() => spool.close());
  const log = captureLogger();
  const receiver = async (port?: number) => {
    const started = await startBatchReceiver({ dbFile: join(dir, 'received.db'), ...(port && { port }), ...options.receiver });
    t.teardown(started.close);
    return started;
  };
  const pusher = (url: string, overrides: Partial<PusherOptions> = {}) => {
    const started = new Pusher({
      spool,
      transport: new HttpTransport({ serverUrl: url, agentKey, version: 'test', hostname: 'test-host', timeoutMs: 2000 }),
      logger: log.logger,
      backoff: { baseMs: 20, capMs: 100 },
      ...overrides,
    });
    started.start();
    t.teardown(() => started.stop());
    return started;
  };
  return { dir, spool, log, receiver, pusher };
}

function appendSingles(spool: Spool, count: number, from = 1): string[] {
  return Array.from({ length: count }, (_, i) => spool.append([sample('db_a', from + i)]).batchId);
}

t.test('server down (refused, then 500 twice, then 200): in order, each stored once, deleted only after 200', async (t) => {
  const inSpoolWhenSent: boolean[] = [];
  const held: { spool?: Spool } = {};
  const { spool, receiver, pusher, log } = setUp(t, {
    receiver: { onRequest: (batchId) => inSpoolWhenSent.push(held.spool!.peek(100).some((batch) => batch.batchId === batchId)) },
  });
  held.spool = spool;
  const ids = appendSingles(spool, 3);
  const port = await freePort();
  const running = pusher(`http://127.0.0.1:${port}`, { limits: { maxSamples: 1, maxBytes: 1e6 } });

  await waitUntil('two refused attempts', async () => running.stats().failures >= 2, 15_000);
  t.equal(spool.stats().batches, 3, 'nothing leaves the spool while the server is down');
  t.match(running.stats().lastError, /ECONNREFUSED/);

  const server = await receiver(port);
  server.plan({ status: 500 }, { status: 500 });
  await waitUntil('the spool to drain', async () => spool.stats().batches === 0, 15_000);

  t.same(server.requests.map((request) => request.status), [500, 500, 200, 200, 200]);
  t.same(server.requests.slice(0, 3).map((request) => request.batchId), [ids[0], ids[0], ids[0]], 'the failed batch is retried first, same id');
  t.same(server.storedBatchIds(), ids, 'stored in spool order');
  t.same(server.storedSamples().map((stored) => stored.timestamp), [1, 2, 3].map((i) => sample('db_a', i).snapshot.timestamp));
  t.same(server.requests.filter((request) => request.status === 200).map((request) => request.batchId), ids, 'each acknowledged exactly once');
  t.ok(inSpoolWhenSent.every(Boolean), 'every batch was still in the spool while the server handled it');
  const stats = running.stats();
  t.match(stats, { sentBatches: 3, sentSamples: 3, duplicateBatches: 0, consecutiveFailures: 0 });
  t.ok(stats.failures >= 4);
  t.ok(log.lines.some((line) => line.msg === 'delivery resumed'), 'recovery is logged');
  t.equal(log.lines.filter((line) => line.msg === 'delivery failed; retrying' && line.level === 40).length, 2, 'one warning per distinct error, repeats at debug');
});

t.test('a batch the server calls malformed is dropped, counted and does not block the rest', async (t) => {
  const { spool, receiver, pusher, log } = setUp(t);
  const server = await receiver();
  server.plan({ status: 400, body: { error: { type: 'invalid_request', message: 'samples.0.snapshot: bad' } } });
  const [bad] = appendSingles(spool, 1);
  const running = pusher(server.url);
  await waitUntil('the first request', async () => server.requests.length === 1, 15_000);
  const later = appendSingles(spool, 2, 10);
  running.notify();
  await waitUntil('the spool to drain', async () => spool.stats().batches === 0, 15_000);
  t.same(server.requests.map((request) => request.status), [400, 200]);
  t.equal(server.requests[0]!.batchId, bad);
  t.same(server.storedBatchIds(), [later[0]], 'the later batches went (merged into one request)');
  t.equal(server.storedSamples().length, 2);
  t.match(spool.stats(), { rejectedTotal: 1, droppedTotal: 0 });
  t.match(running.stats(), { refusedBatches: 1, sentBatches: 1 });
  const line = log.lines.find((entry) => entry.level === 50);
  t.match(line, { batchId: bad, samples: 1, status: 400 }, 'logged as an error with the batch id');
});

t.test('429 Retry-After is honoured over the backoff', async (t) => {
  const { spool, receiver, pusher } = setUp(t);
  const server = await receiver();
  server.plan({ status: 429, headers: { 'retry-after': '1' } });
  appendSingles(spool, 1);
  pusher(server.url, { backoff: { baseMs: 10, capMs: 50 } });
  await waitUntil('the spool to drain', async () => spool.stats().batches === 0, 15_000);
  t.same(server.requests.map((request) => request.status), [429, 200]);
  const waited = server.requests[1]!.atMs - server.requests[0]!.atMs;
  t.ok(waited >= 950, `waited ${Math.round(waited)} ms for Retry-After: 1`);
});

t.test('a refused key keeps the batch and retries at the backoff cap, logged clearly without the key', async (t) => {
  const { spool, receiver, pusher, log } = setUp(t);
  const server = await receiver();
  server.plan({ status: 401, body: { error: { type: 'authentication_error', code: 'invalid_api_key', message: 'invalid key' } } }, { status: 403 });
  const [id] = appendSingles(spool, 1);
  pusher(server.url, { backoff: { baseMs: 1, capMs: 150 } });
  await waitUntil('the spool to drain', async () => spool.stats().batches === 0, 15_000);
  t.same(server.requests.map((request) => [request.status, request.batchId]), [[401, id], [403, id], [200, id]]);
  for (const i of [1, 2]) {
    const gap = server.requests[i]!.atMs - server.requests[i - 1]!.atMs;
    t.ok(gap >= 140, `retry ${i} waited the cap (${Math.round(gap)} ms)`);
  }
  const errors = log.lines.filter((line) => line.level === 50);
  t.equal(errors.length, 2);
  t.match(errors[0], { msg: /refused the agent key/, status: 401, error: /invalid_api_key/ });
  t.notMatch(log.text(), agentKey, 'the key is never logged');
});

t.test('new batches are sent at once when idle; nothing is polled', async (t) => {
  const { spool, receiver, pusher } = setUp(t);
  const server = await receiver();
  const running = pusher(server.url);
  await sleep(50);
  appendSingles(spool, 1);
  await sleep(200);
  t.equal(server.requests.length, 0, 'without a notification the idle pusher sleeps');
  const notifiedAt = performance.now();
  running.notify();
  await waitUntil('the request', async () => server.requests.length === 1, 15_000);
  t.ok(server.requests[0]!.atMs - notifiedAt < 200, 'sent right after notify()');
});

t.test('stop() lets the send in flight finish and be acknowledged', async (t) => {
  const { spool, receiver, pusher } = setUp(t);
  let release: (() => void) | undefined;
  const server = await receiver();
  server.plan({ store: true, hold: () => new Promise<void>((resolve) => (release = resolve)) });
  appendSingles(spool, 1);
  const running = pusher(server.url);
  await waitUntil('the request', async () => release !== undefined, 15_000);
  let stopped = false;
  const stopping = running.stop().then(() => (stopped = true));
  await sleep(100);
  t.equal(stopped, false, 'stop waits for the answer');
  release!();
  await stopping;
  t.equal(spool.stats().batches, 0, 'the answered batch was acknowledged before stop returned');
  t.equal(running.stats().sentBatches, 1);
});

t.test('a backlog drains in few requests, and spool_dropped_total is reported', async (t) => {
  const { spool, receiver, pusher } = setUp(t, { maxSamples: 600 });
  const server = await receiver();
  appendSingles(spool, 601);
  t.equal(spool.droppedTotal(), 1);
  // The sample cap, not the byte cap, is what this test is about: 500 samples are about 770 kB (341 fit in 512 KiB).
  pusher(server.url, { limits: { ...defaultSendLimits, maxBytes: 2 * 1024 * 1024 } });
  await waitUntil('the spool to drain', async () => spool.stats().batches === 0, 15_000);
  t.same(server.requests.map((request) => request.sampleCount), [500, 100], 'merged up to 500 samples per batch');
  t.same(server.requests.map((request) => request.spoolDroppedTotal), [1, 1]);
  t.same(server.requests.map((request) => request.spoolBatches), [100, 0], 'the batches left behind each request');
  t.equal(server.storedSamples().length, 600);
});

t.test("each batch reports the spool's depth and oldest batch age behind it, by the agent's clock", async (t) => {
  let appendedAt = new Date('2026-11-24T08:00:00Z');
  const { spool, receiver, pusher } = setUp(t, { spoolNow: () => appendedAt });
  for (const offsetSeconds of [0, 10, 25]) {
    appendedAt = new Date(Date.UTC(2026, 10, 24, 8, 0, offsetSeconds));
    appendSingles(spool, 1, offsetSeconds);
  }
  const server = await receiver();
  pusher(server.url, { limits: { maxSamples: 1, maxBytes: 1e6 }, now: () => new Date('2026-11-24T08:01:00Z') });
  await waitUntil('the spool to drain', async () => spool.stats().batches === 0, 15_000);
  t.same(
    server.requests.map(({ spoolBatches, spoolOldestBatchAgeSeconds }) => [spoolBatches, spoolOldestBatchAgeSeconds]),
    [
      [2, 50],
      [1, 35],
      [0, 0],
    ],
    'the sent batch itself is not counted; an empty spool is 0 batches of age 0',
  );
});

t.test('an oldest batch age is kept within what the protocol accepts when the clock was stepped', async (t) => {
  for (const [stepped, expected] of [
    ['2026-11-24T07:00:00Z', 0],
    ['2046-11-24T08:00:00Z', maxSpoolAgeSeconds],
  ] as const) {
    const { spool, receiver, pusher } = setUp(t, { spoolNow: () => new Date('2026-11-24T08:00:00Z') });
    appendSingles(spool, 2);
    const server = await receiver();
    pusher(server.url, { limits: { maxSamples: 1, maxBytes: 1e6 }, now: () => new Date(stepped) });
    await waitUntil('the spool to drain', async () => spool.stats().batches === 0, 15_000);
    t.equal(server.requests[0]!.spoolOldestBatchAgeSeconds, expected, `clock at ${stepped}`);
  }
});
