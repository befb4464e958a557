import t from 'tap';
import { stepsWithin } from '../../../server/jobs/steps-within.js';

/** A step that keeps the thread busy for `ms`. */
function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

t.test('steps stop before the one that would overrun the budget', async (t) => {
  let steps = 0;
  const left = stepsWithin(20, () => {
    steps++;
    busyFor(8);
    return true;
  });
  t.equal(left, true);
  // Checking the clock only after each step would run a third (8, 16, then 24 ms); a step that took
  // longer than 8 ms (the thread preempted) only makes fewer fit.
  t.ok(steps >= 1 && steps <= 2, `${steps} steps of 8 ms in 20 ms`);
});

t.test('small steps fill the budget', async (t) => {
  // Judged by the rule, not by a count: a step preempted on a busy machine takes longer than 1 ms
  // and rightly makes fewer fit.
  const durations: number[] = [];
  const started = performance.now();
  t.equal(
    stepsWithin(20, () => {
      const stepStarted = performance.now();
      busyFor(1);
      durations.push(performance.now() - stepStarted);
      return true;
    }),
    true,
  );
  const elapsed = performance.now() - started;
  t.ok(durations.length >= 2, `${durations.length} steps of 1 ms`);
  t.ok(elapsed + Math.max(...durations) > 20, `stopped after ${elapsed.toFixed(1)} ms only because another step as long as the longest (${Math.max(...durations).toFixed(1)} ms) would end past 20 ms`);
});

t.test('at least one step, even one longer than the budget', async (t) => {
  let steps = 0;
  t.equal(
    stepsWithin(1, () => {
      steps++;
      busyFor(3);
      return true;
    }),
    true,
  );
  t.equal(steps, 1);
});

t.test('false as soon as a step says nothing is left', async (t) => {
  let steps = 0;
  t.equal(
    stepsWithin(1_000, () => ++steps < 3),
    false,
  );
  t.equal(steps, 3);
});
