import t from 'tap';
import { metricCatalog } from '../../../../common/metric-catalog.js';
import { decodeSeriesBlock, encodeSeriesBlock } from '../../../../server/metrics/blocks/series-block.js';
import { decodeTimestampBlock, encodeTimestampBlock } from '../../../../server/metrics/blocks/timestamp-block.js';

/** A deterministic pseudo-random source (mulberry32), so a failure reproduces. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}

t.test('every value comes back within half its step, nulls where they were', async (t) => {
  const next = random(14);
  for (const { path, step } of metricCatalog) {
    const values = Array.from({ length: 360 }, (_, i) => (next() < 0.1 ? null : i * 7.3 + next() * 1_000 * step * 1_000));
    const decoded = decodeSeriesBlock(encodeSeriesBlock(values, step), step);
    t.equal(decoded.length, values.length, `${path}: as many values`);
    const worst = Math.max(...values.map((value, i) => (value === null ? (decoded[i] === null ? 0 : Infinity) : Math.abs(decoded[i]! - value))));
    t.ok(worst <= step / 2 + 1e-9 * step, `${path}: off by ${worst} at most, step ${step}`);
  }
});

t.test('a value already at the step comes back exactly', async (t) => {
  const values = [12.345, 0.001, 99.999, 0, 100, 3.1, null, 1e9 + 0.007];
  t.same(decodeSeriesBlock(encodeSeriesBlock(values, 0.001), 0.001), values);
  t.same(decodeSeriesBlock(encodeSeriesBlock([3_000_000_000_000, 2_999_999_999_999, 7, 0], 1), 1), [3_000_000_000_000, 2_999_999_999_999, 7, 0]);
  t.same(decodeSeriesBlock(encodeSeriesBlock([10, 20, 35, -5], 5), 5), [10, 20, 35, -5], 'a step above 1');
});

t.test('blocks of no values, only nulls, or every value', async (t) => {
  for (const values of [[], [null, null, null], [null], [0], [0, 0, 0], [5, null, null, null, null, null, null, null, null, 5]]) {
    t.same(decodeSeriesBlock(encodeSeriesBlock(values, 1), 1), values, JSON.stringify(values));
  }
  t.equal(encodeSeriesBlock(new Array<null>(360).fill(null), 1).length, 3, 'an hour without values: count and presence');
});

t.test('a steady hour takes a few bytes, a moving one about two a value', async (t) => {
  t.ok(encodeSeriesBlock(new Array<number>(360).fill(100), 1).length <= 8, 'a constant hour: count, presence, the value, a run');
  const next = random(7);
  let cpu = 40;
  const walk = Array.from({ length: 360 }, () => (cpu = Math.min(100, Math.max(0, cpu + (next() - 0.5) * 0.5))));
  const bytes = encodeSeriesBlock(walk, 0.001).length;
  t.ok(bytes / 360 <= 2.1, `a percentage moving by up to 0.25 a sample: ${(bytes / 360).toFixed(2)} B a value`);
});

t.test('what a block cannot hold is refused, and a damaged block does not decode', async (t) => {
  t.throws(() => encodeSeriesBlock([2 ** 60], 1), RangeError, 'beyond 2^51 steps');
  t.throws(() => encodeSeriesBlock([Number.NaN], 1), RangeError);
  t.throws(() => encodeSeriesBlock([1], 0.3), RangeError, 'a step below 1 that does not divide 1');
  const block = encodeSeriesBlock([1, 2, 300, null, 5], 0.001);
  t.throws(() => decodeSeriesBlock(block.subarray(0, block.length - 1), 0.001), RangeError, 'truncated');
  t.throws(() => decodeSeriesBlock(Uint8Array.from([...block, 0]), 0.001), RangeError, 'trailing bytes');
  t.throws(() => decodeSeriesBlock(Uint8Array.from([2, 9]), 1), RangeError, 'unknown presence');
  t.throws(() => decodeSeriesBlock(Uint8Array.from([2, 1, 0, 5]), 1), RangeError, 'a run past the end');
});

t.test('timestamps: a database-hour at a steady interval in a few bytes, jitter in one or two a sample', async (t) => {
  const start = Date.UTC(2026, 10, 24, 5);
  const steady = Array.from({ length: 360 }, (_, i) => start + 4_321 + i * 10_000);
  const steadyBlock = encodeTimestampBlock(start, steady);
  t.same(decodeTimestampBlock(start, steadyBlock), steady);
  t.ok(steadyBlock.length <= 10, `steady: ${steadyBlock.length} B`);
  const next = random(3);
  const jittered = steady.map((ts) => ts + Math.round(next() * 40));
  const jitteredBlock = encodeTimestampBlock(start, jittered);
  t.same(decodeTimestampBlock(start, jitteredBlock), jittered);
  t.ok(jitteredBlock.length / 360 <= 2, `40 ms of jitter: ${(jitteredBlock.length / 360).toFixed(2)} B a sample`);
  t.same(decodeTimestampBlock(start, encodeTimestampBlock(start, [])), []);
  t.throws(() => encodeTimestampBlock(start, [start + 10, start + 5]), RangeError, 'out of order');
  t.throws(() => encodeTimestampBlock(start, [start - 1]), RangeError, 'before the hour');
  t.throws(() => decodeTimestampBlock(start, Uint8Array.from([...steadyBlock, 1])), RangeError);
});
