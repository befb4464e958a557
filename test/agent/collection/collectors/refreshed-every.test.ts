import pino from 'pino';
import t from 'tap';
import type { CollectContext, Collector } from '../../../../agent/collection/collector.js';
import { refreshedEvery } from '../../../../agent/collection/collectors/refreshed-every.js';

const at = (ms: number): CollectContext => ({ signal: AbortSignal.timeout(5000), now: new Date(ms), logger: pino({ level: 'silent' }) });

/** A collector that counts its runs per source and fails while told to. */
function countingCollector(): Collector<{ runs: number; failing?: boolean }> {
  return {
    name: 'counting',
    async collect(source) {
      source.runs += 1;
      if (source.failing === true) throw new Error('engine said no');
      return { counters: { runs: source.runs } };
    },
  };
}

t.test('runs once per period for each source, its last contribution standing in between', async (t) => {
  const collector = refreshedEvery(60_000, countingCollector());
  const first = { runs: 0 };
  const second = { runs: 0 };
  t.same(await collector.collect(first, at(0)), { counters: { runs: 1 } });
  t.same(await collector.collect(first, at(59_999)), { counters: { runs: 1 } }, 'within the period: not run');
  t.same(await collector.collect(second, at(30_000)), { counters: { runs: 1 } }, 'another database runs on its own clock');
  t.same(await collector.collect(first, at(60_000)), { counters: { runs: 2 } }, 'a period later: run again');
  t.equal(first.runs, 2);
  t.equal(collector.name, 'counting', 'the outcome keeps the collector’s name');
});

t.test('a clock set back runs it again rather than holding the old values', async (t) => {
  const collector = refreshedEvery(60_000, countingCollector());
  const source = { runs: 0 };
  await collector.collect(source, at(1_000_000));
  t.same(await collector.collect(source, at(1_000_000 - 3_600_000)), { counters: { runs: 2 } });
});

t.test('a failure is not kept: the next cycle runs it again', async (t) => {
  const collector = refreshedEvery(60_000, countingCollector());
  const source = { runs: 0, failing: true };
  await t.rejects(collector.collect(source, at(0)), /engine said no/);
  source.failing = false;
  t.same(await collector.collect(source, at(1_000)), { counters: { runs: 2 } });
  t.same(await collector.collect(source, at(2_000)), { counters: { runs: 2 } });
});
