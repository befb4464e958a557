import t from 'tap';
import { decodeRollupBlock, encodeRollupBlock, type RollupRow } from '../../../../server/metrics/blocks/rollup-block.js';

const hour = 3_600_000;
const span = { start: 100 * hour, width: 60_000 };
const metrics = [
  { column: 'cpu_usage', step: 0.001 },
  { column: 'connections_active', step: 1 },
];

/** A 1 m bucket `place` minutes into the span; cpu from `cpu` (null: no value), connections from `connections`. */
function bucket(place: number, samples: number, cpu: number[], connections: number[]): RollupRow {
  const stats = (values: number[]) =>
    values.length === 0
      ? { avg: null, min: null, max: null, count: 0 }
      : { avg: values.reduce((a, b) => a + b, 0) / values.length, min: Math.min(...values), max: Math.max(...values), count: values.length };
  const row: RollupRow = { bucket: span.start + place * span.width, samples };
  for (const [column, values] of [
    ['cpu_usage', cpu],
    ['connections_active', connections],
  ] as const) {
    for (const [stat, value] of Object.entries(stats(values))) row[`${column}_${stat}`] = value;
  }
  return row;
}

const rows = [
  bucket(0, 6, [1.5, 2.25, 3, 4.125, 5, 6.0005], [3, 4, 4, 5, 3, 3]),
  bucket(1, 6, [], []),
  bucket(7, 3, [12.345], [2, 2, 7]),
  bucket(59, 1, [99.999], [10]),
];

t.test('a block reads back its buckets: empty ones skipped, nulls where no value, means within half a step over the count', async (t) => {
  const block = encodeRollupBlock(rows, span, metrics);
  const decoded = decodeRollupBlock(block, span, metrics, true);
  t.same(
    decoded.map((row) => row.ts),
    rows.map((row) => row.bucket),
    'the buckets that were there, in order',
  );
  for (const [index, row] of decoded.entries()) {
    const original = rows[index]!;
    t.equal(row.samples, original.samples);
    for (const { column, step } of metrics) {
      t.equal(row[`${column}_count`], original[`${column}_count`], `${column} count`);
      for (const stat of ['min', 'max']) {
        const value = original[`${column}_${stat}`]!;
        if (value === null) t.equal(row[`${column}_${stat}`], null, `${column}: no ${stat}`);
        else t.ok(Math.abs(row[`${column}_${stat}`]! - value) <= step / 2 + 1e-12, `${column} ${stat} ${row[`${column}_${stat}`]} for ${value}`);
      }
      const avg = original[`${column}_avg`]!;
      if (avg === null) t.equal(row[`${column}_avg`], null, `${column}: no mean`);
      else t.ok(Math.abs(row[`${column}_avg`]! - avg) <= step / 2 / original[`${column}_count`]! + 1e-12, `${column}: mean ${row[`${column}_avg`]} for ${avg}`);
    }
  }
  t.equal(decoded[2]!.connections_active_avg, 11 / 3, 'an integer metric\'s mean is exact (its sum is stored)');
});

t.test('a reader decodes only the metrics asked for; without counts, no counts', async (t) => {
  const block = encodeRollupBlock(rows, span, metrics);
  const [first] = decodeRollupBlock(block, span, [{ column: 'connections_active' }], false);
  t.same(first, { ts: span.start, connections_active_avg: 22 / 6, connections_active_min: 3, connections_active_max: 5 });
});

t.test('a metric absent from an older block reads as no values', async (t) => {
  const block = encodeRollupBlock(rows, span, metrics.slice(0, 1));
  const decoded = decodeRollupBlock(block, span, [{ column: 'connections_active' }, { column: 'cpu_usage' }], true);
  t.same(decoded[3], {
    ts: span.start + 59 * span.width,
    samples: 1,
    connections_active_avg: null,
    connections_active_min: null,
    connections_active_max: null,
    connections_active_count: null,
    cpu_usage_avg: 99.999,
    cpu_usage_min: 99.999,
    cpu_usage_max: 99.999,
    cpu_usage_count: 1,
  });
});

t.test('buckets folded before value counts were kept count their samples, or none without a mean', async (t) => {
  const old = rows.map((row) => ({ ...row, cpu_usage_count: null, connections_active_count: null }));
  const decoded = decodeRollupBlock(encodeRollupBlock(old, span, metrics), span, metrics, true);
  t.same(
    decoded.map((row) => row.cpu_usage_count),
    [6, 0, 3, 1],
  );
  t.ok(Math.abs(decoded[2]!.cpu_usage_avg! - 12.345) < 1e-9, 'the mean weighs by the sample count and comes back');
});

t.test('an empty block, and a block of an unknown version', async (t) => {
  t.same(decodeRollupBlock(encodeRollupBlock([], span, metrics), span, metrics, true), []);
  const block = encodeRollupBlock(rows, span, metrics);
  block[0] = 9;
  t.throws(() => decodeRollupBlock(block, span, metrics, false), /unknown rollup block version 9/);
});

t.test('a value too large for a block is refused', async (t) => {
  t.throws(() => encodeRollupBlock([{ ...rows[3]!, cpu_usage_max: 1e300 }], span, metrics), RangeError);
});

t.test('blocks of many different metric sets each read their own metrics', async (t) => {
  const sets = Array.from({ length: 20 }, (_, n) => [{ column: `metric_${n}`, step: 1 }]);
  const blocks = sets.map((set, n) =>
    encodeRollupBlock([{ bucket: span.start, samples: 1, [`metric_${n}_avg`]: n, [`metric_${n}_min`]: n, [`metric_${n}_max`]: n, [`metric_${n}_count`]: 1 }], span, set),
  );
  for (const round of [1, 2]) {
    for (const [n, block] of blocks.entries()) {
      t.same(decodeRollupBlock(block, span, sets[n]!, false), [{ ts: span.start, [`metric_${n}_avg`]: n, [`metric_${n}_min`]: n, [`metric_${n}_max`]: n }], `set ${n}, round ${round}`);
    }
  }
});
