import t from 'tap';
import { counterIncrease, counterRate, measureInterval } from '../../../agent/collection/counter-delta.js';

t.test('measureInterval', async (t) => {
  t.same(measureInterval({ atMs: 0 }, { atMs: 10_000, uptimeSeconds: 3600 }), { seconds: 10, restarted: false });
  t.same(measureInterval({ atMs: 0 }, { atMs: 10_000 }), { seconds: 10, restarted: false }, 'no uptime: no restart detected');
  t.same(measureInterval({ atMs: 0 }, { atMs: 60_000, uptimeSeconds: 20 }), { seconds: 60, restarted: true }, 'engine started within the interval');
  t.same(
    measureInterval({ atMs: 0 }, { atMs: 10_000, uptimeSeconds: 9 }),
    { seconds: 10, restarted: false },
    'whole-second uptime one short of the interval is clock disagreement, not a restart',
  );
  t.equal(measureInterval({ atMs: 5000 }, { atMs: 5000 }), null, 'no time passed');
  t.equal(measureInterval({ atMs: 6000 }, { atMs: 5000 }), null, 'clock went back');
});

t.test('counterRate', async (t) => {
  const interval = { seconds: 10, restarted: false };
  t.equal(counterRate(100, 600, interval), 50);
  t.equal(counterRate(100, 100, interval), 0, 'no traffic is a rate of 0');
  t.equal(counterRate(undefined, 600, interval), null, 'first reading');
  t.equal(counterRate(100, undefined, interval), null, 'counter missing this cycle');
  t.equal(counterRate(100, 600, null), null, 'no interval');
  t.equal(counterRate(1_000_000, 40, interval), null, 'counter went back: reset at an unknown moment');
  t.equal(
    counterRate(1_000, 5_000, { seconds: 10, restarted: true }),
    null,
    'restart: a counter that grew past its old value is still not a rate',
  );
});

t.test('counterIncrease', async (t) => {
  t.equal(counterIncrease(100, 150), 50);
  t.equal(counterIncrease(undefined, 150), 150, 'an entry new since the last reading did all its work within the interval');
  t.equal(counterIncrease(500, 30), 30, 'an entry reset since the last reading did what it holds within the interval');
  t.equal(counterIncrease(30, 30), 0);
});
