import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import t from 'tap';
import { newBatchId, openSpool } from '../../../agent/delivery/spool.js';
import { makeSnapshot } from '../../helpers/snapshot-factory.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** One sample of `databaseId`, stamped `index` seconds after a fixed start. */
function sample(databaseId: string, index: number) {
  return { database_id: databaseId, snapshot: makeSnapshot(new Date(Date.UTC(2026, 10, 22, 8, 0, index))) };
}

function tempSpoolPath(t: { teardown(fn: () => unknown): void }): string {
  return join(tempDir(t, 'dbmon-spool-'), 'spool.db');
}

const allLimits = { maxSamples: 500, maxBytes: 1024 * 1024 };

t.test('the spool and its write-ahead log are owner-only', async (t) => {
  const file = tempSpoolPath(t);
  const previous = process.umask(0o022);
  let spool;
  try {
    spool = openSpool(file, { maxSamples: 100 });
  } finally {
    process.umask(previous);
  }
  t.teardown(() => spool.close());
  spool.append([sample('db_a', 1)]);
  t.equal(statSync(file).mode & 0o777, 0o600, 'the spool');
  t.equal(statSync(`${file}-wal`).mode & 0o777, 0o600, 'its write-ahead log');
});

t.test('batch ids match the protocol pattern and are fresh', async (t) => {
  const ids = new Set(Array.from({ length: 1000 }, () => newBatchId()));
  t.equal(ids.size, 1000);
  for (const id of ids) if (!/^[A-Za-z0-9_-]{26,64}$/.test(id)) t.fail(`bad id ${id}`);
});

t.test('append, peek oldest first, ack deletes only the acknowledged batch', async (t) => {
  const spool = openSpool(tempSpoolPath(t), { maxSamples: 100 });
  t.teardown(() => spool.close());
  const first = spool.append([sample('db_a', 1)]);
  const second = spool.append([sample('db_a', 2), sample('db_b', 2)]);
  const third = spool.append([sample('db_a', 3)]);
  t.equal(first.droppedSamples, 0);
  t.not(first.batchId, second.batchId);

  const peeked = spool.peek(10);
  t.same(peeked.map((batch) => batch.batchId), [first.batchId, second.batchId, third.batchId], 'oldest first');
  t.same(peeked[1]!.samples, [sample('db_a', 2), sample('db_b', 2)], 'samples round-trip');
  t.same(spool.peek(1).map((batch) => batch.batchId), [first.batchId], 'peek honours its limit');
  t.same(spool.stats(), { batches: 3, samples: 4, droppedTotal: 0, rejectedTotal: 0 });

  t.equal(spool.ack(second.batchId), true);
  t.equal(spool.ack(second.batchId), false, 'a second ack finds nothing');
  t.same(spool.peek(10).map((batch) => batch.batchId), [first.batchId, third.batchId]);
  t.throws(() => spool.append([]), RangeError, 'an empty batch is refused');
});

t.test('at the cap the oldest batches are dropped first, counted persistently across reopen', async (t) => {
  const path = tempSpoolPath(t);
  let spool = openSpool(path, { maxSamples: 5 });
  const ids = [1, 2, 3].map((i) => spool.append([sample('db_a', i), sample('db_b', i)]).batchId);
  // 6 samples > 5: the first batch (2 samples) went to make room for the third.
  t.same(spool.peek(10).map((batch) => batch.batchId), ids.slice(1));
  t.equal(spool.droppedTotal(), 2);
  const fourth = spool.append([sample('db_a', 4)]);
  t.equal(fourth.droppedSamples, 0, '5 samples fit exactly');
  spool.close();

  spool = openSpool(path, { maxSamples: 5 });
  t.teardown(() => spool.close());
  t.equal(spool.droppedTotal(), 2, 'the drop counter survives a reopen');
  t.same(spool.stats().samples, 5, 'the running total is rebuilt from the file');
  const fifth = spool.append([sample('db_a', 5), sample('db_a', 6)]);
  t.equal(fifth.droppedSamples, 2, 'the oldest remaining batch (2 samples) is dropped');
  t.equal(spool.droppedTotal(), 4);
  t.same(spool.peek(10).map((batch) => batch.batchId), [ids[2], fourth.batchId, fifth.batchId]);

  const huge = spool.append(Array.from({ length: 6 }, (_, i) => sample('db_c', i)));
  t.equal(huge.droppedSamples, 6, 'a batch larger than the cap is itself dropped, keeping the rest');
  t.equal(spool.droppedTotal(), 10);
  t.equal(spool.stats().batches, 3);
});

t.test('the backlog behind the batch being sent: its depth and oldest time, also once the cap dropped the sent batch', async (t) => {
  let clock = new Date('2026-11-24T08:00:00Z');
  const spool = openSpool(tempSpoolPath(t), { maxSamples: 3, now: () => clock });
  t.teardown(() => spool.close());
  const times = ['2026-11-24T08:00:00.000Z', '2026-11-24T08:00:10.000Z', '2026-11-24T08:00:20.000Z'];
  const ids = times.map((time, i) => {
    clock = new Date(time);
    return spool.append([sample('db_a', i)]).batchId;
  });
  const sending = spool.nextToSend({ maxSamples: 1, maxBytes: 1024 * 1024 })!;
  t.equal(sending.batchId, ids[0]);
  t.same(spool.backlogBehind(sending.batchId), { batches: 2, oldestCreatedAt: times[1] }, 'the batch being sent is not counted');

  clock = new Date('2026-11-24T08:00:30Z');
  spool.append([sample('db_a', 3)]);
  t.same(spool.backlogBehind(sending.batchId), { batches: 3, oldestCreatedAt: times[1] }, 'dropped at the cap while in flight: every batch left counts');

  for (const batch of spool.peek(10)) spool.ack(batch.batchId);
  t.same(spool.backlogBehind(sending.batchId), { batches: 0, oldestCreatedAt: null }, 'an empty spool');
});

t.test('nextToSend merges never-attempted batches, then resends the attempted one unchanged', async (t) => {
  const spool = openSpool(tempSpoolPath(t), { maxSamples: 1000 });
  t.teardown(() => spool.close());
  const ids = [1, 2, 3, 4, 5].map((i) => spool.append([sample('db_a', i)]).batchId);

  const merged = spool.nextToSend({ maxSamples: 3, maxBytes: 1024 * 1024 })!;
  t.equal(merged.batchId, ids[0], 'the merged batch keeps the oldest id');
  t.same(merged.samples, [1, 2, 3].map((i) => sample('db_a', i)), 'in order, up to maxSamples');
  t.equal(merged.attempted, true);

  spool.append([sample('db_a', 6)]);
  const again = spool.nextToSend(allLimits)!;
  t.same(again, merged, 'an attempted batch is handed out again as it was: never merged after it may have been sent');
  t.equal(spool.stats().samples, 6, 'merging loses and copies nothing');

  t.ok(spool.ack(merged.batchId));
  const byBytes = spool.nextToSend({ maxSamples: 500, maxBytes: 1 })!;
  t.equal(byBytes.batchId, ids[3], 'the byte bound stops merging (the head always goes)');
  t.equal(byBytes.samples.length, 1);
  t.ok(spool.ack(byBytes.batchId));
  t.same(spool.nextToSend(allLimits)!.samples, [5, 6].map((i) => sample('db_a', i)));
});

t.test('reject removes a batch for good and counts its samples', async (t) => {
  const spool = openSpool(tempSpoolPath(t), { maxSamples: 100 });
  t.teardown(() => spool.close());
  const bad = spool.append([sample('db_a', 1), sample('db_a', 2)]);
  const good = spool.append([sample('db_a', 3)]);
  t.equal(spool.reject(bad.batchId), 2);
  t.same(spool.peek(10).map((batch) => batch.batchId), [good.batchId]);
  t.same(spool.stats(), { batches: 1, samples: 1, droppedTotal: 0, rejectedTotal: 2 });
});

t.test('a second agent cannot open a spool in use', async (t) => {
  const path = tempSpoolPath(t);
  const spool = openSpool(path, { maxSamples: 100 });
  t.teardown(() => spool.close());
  spool.append([sample('db_a', 1)]);
  t.throws(() => openSpool(path, { maxSamples: 100 }), { code: 'SQLITE_BUSY' });
});

t.test('kill -9 while appending and attempting loses nothing committed', async (t) => {
  const path = tempSpoolPath(t);
  // A child process appends as fast as it can, marking batches attempted, and reports every
  // committed batch id; it is killed without warning in the middle of that.
  const script = `
    import { openSpool } from ${JSON.stringify(new URL('../../../agent/delivery/spool.ts', import.meta.url).href)};
    const spool = openSpool(${JSON.stringify(path)}, { maxSamples: 1000000 });
    for (let i = 0; ; i++) {
      const { batchId } = spool.append([{ database_id: 'db_a', snapshot: { timestamp: String(i) } }]);
      if (i % 7 === 0) spool.nextToSend({ maxSamples: 3, maxBytes: 1e6 });
      process.stdout.write(batchId + '\\n');
    }
  `;
  const loader = process.execArgv.find((arg) => arg.includes('@tapjs/typescript'));
  const child = spawn(process.execPath, [...(loader ? [loader] : []), '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  await new Promise<void>((resolve) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.split('\n').length > 300) resolve();
    });
  });
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  const reported = output.split('\n').slice(0, -1);
  t.ok(reported.length >= 300);

  const spool = openSpool(path, { maxSamples: 1000000 });
  t.teardown(() => spool.close());
  const batches = spool.peek(1_000_000);
  const timestamps = batches.flatMap((batch) => batch.samples.map((s) => Number(s.snapshot.timestamp)));
  t.ok(timestamps.length >= reported.length, `every reported append survived (${timestamps.length} >= ${reported.length})`);
  t.same(timestamps, Array.from({ length: timestamps.length }, (_, i) => i), 'in order, no sample lost or doubled');
  t.ok(batches.filter((batch) => batch.attempted).length <= 1, 'only the head may be attempted');
});

t.test('a spool growing while the server is down keeps a small page cache, not megabytes of it', async (t) => {
  const dir = tempDir(t, 'dbmon-spool-');
  // The child runs the spool compiled to JavaScript, without the TypeScript loader, whose own
  // thread frees and takes memory at its own pace and would blur the measurement.
  const compiled = join(dir, 'spool.mjs');
  await build({
    entryPoints: [fileURLToPath(new URL('../../../agent/delivery/spool.ts', import.meta.url))],
    outfile: compiled,
    bundle: true,
    format: 'esm',
    platform: 'node',
    logLevel: 'error',
    plugins: [
      {
        name: 'installed better-sqlite3',
        setup: (plugin) => plugin.onResolve({ filter: /^better-sqlite3$/ }, () => ({ path: createRequire(import.meta.url).resolve('better-sqlite3'), external: true })),
      },
    ],
  });
  // It spools 300 batches of about 18 KiB, as an agent does during an outage, and reports how
  // much its resident memory outside V8's heap grew meanwhile.
  const script = `
    import { readFileSync } from 'node:fs';
    import { openSpool } from ${JSON.stringify(pathToFileURL(compiled).href)};
    const outsideHeapKiB = () => {
      globalThis.gc();
      const rssAnon = Number(/RssAnon:\\s+(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]);
      return rssAnon - process.memoryUsage().heapTotal / 1024;
    };
    const spool = openSpool(${JSON.stringify(join(dir, 'spool.db'))}, { maxSamples: 1000000 });
    const snapshot = (i) => ({ timestamp: String(i), metrics: Object.fromEntries(Array.from({ length: 600 }, (_, j) => ['metric_' + j, i * j])) });
    spool.append([{ database_id: 'db_a', snapshot: snapshot(0) }]);
    const before = outsideHeapKiB();
    for (let i = 1; i <= 300; i++) spool.append([{ database_id: 'db_a', snapshot: snapshot(i) }]);
    process.stdout.write(String(outsideHeapKiB() - before));
    spool.close();
  `;
  const child = spawn(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise((resolve) => child.once('exit', resolve));
  t.equal(code, 0);
  const grewKiB = Number(output);
  // With SQLite's default page cache (2 MB) it grew 5.1 MiB, with the spool's 1.5 MiB.
  t.ok(grewKiB < 3 * 1024, `resident memory outside V8's heap grew ${(grewKiB / 1024).toFixed(1)} MiB over 300 batches`);
});
