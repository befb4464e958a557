import { performance } from 'node:perf_hooks';
import t from 'tap';
import { LoopTurns } from '../../../server/jobs/loop-turns.js';

/** Holds the thread for `ms`, as a slice's work does. */
function work(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}

t.test('two sliced tasks never run in the same turn of the event loop: the timers run between any two slices', async (t) => {
  const turns = new LoopTurns();
  // A 1 ms interval fires at the start of every turn that begins 1 ms or more after its last run;
  // each slice works 2 ms, so a slice that ran in a turn of its own sees a count no other slice saw.
  let timerRuns = 0;
  const timer = setInterval(() => timerRuns++, 1);
  t.teardown(() => clearInterval(timer));
  const seen: { task: string; timerRuns: number }[] = [];
  const task = async (name: string, slices: number) => {
    for (let i = 0; i < slices; i++) {
      await turns.next();
      seen.push({ task: name, timerRuns });
      work(2);
    }
  };
  await Promise.all([task('ingest', 6), task('rollups', 6), task('seal', 6)]);
  t.equal(seen.length, 18);
  t.equal(new Set(seen.map((slice) => slice.timerRuns)).size, 18, 'each slice in a turn of its own');
  t.same(
    seen.slice(0, 6).map((slice) => slice.task),
    ['ingest', 'rollups', 'seal', 'ingest', 'rollups', 'seal'],
    'turns go round the waiting tasks in the order they asked',
  );
});

t.test('I/O is served between two slices: a request that arrives while slices are queued is answered before the queue drains', async (t) => {
  const turns = new LoopTurns();
  const { createServer } = await import('node:http');
  const server = createServer((_request, response) => response.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as { port: number };
  let slicesRun = 0;
  let slicesBeforeAnswer: number | undefined;
  const answered = globalThis.fetch(`http://127.0.0.1:${port}/`).then(async (response) => {
    await response.text();
    slicesBeforeAnswer = slicesRun;
  });
  const queued = Array.from({ length: 200 }, async () => {
    await turns.next();
    slicesRun++;
    work(1);
  });
  await Promise.all([answered, ...queued]);
  t.ok(slicesBeforeAnswer !== undefined && slicesBeforeAnswer < 100, `the request was answered after ${slicesBeforeAnswer} of 200 slices`);
});

t.test('a task that asks for its next turn while others wait goes behind them', async (t) => {
  const turns = new LoopTurns();
  const order: string[] = [];
  const first = (async () => {
    await turns.next();
    order.push('a1');
    await turns.next();
    order.push('a2');
  })();
  const second = (async () => {
    await turns.next();
    order.push('b1');
  })();
  await Promise.all([first, second]);
  t.same(order, ['a1', 'b1', 'a2']);
});
