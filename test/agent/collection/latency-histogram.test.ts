import t from 'tap';
import type { HistogramBucket } from '../../../agent/collection/collector.js';
import { histogramIncrease, histogramMean, histogramQuantile } from '../../../agent/collection/latency-histogram.js';

const bucket = (lowerMs: number, upperMs: number, count: number, sumMs: number | null): HistogramBucket => ({
  lowerMs,
  upperMs,
  count,
  sumMs,
});

t.test('histogramIncrease subtracts per bucket', async (t) => {
  const before = [bucket(0, 1, 10, 5), bucket(1, 10, 2, 8), bucket(10, Infinity, 0, null)];
  const after = [bucket(0, 1, 110, 55), bucket(1, 10, 2, 8), bucket(10, Infinity, 1, null)];
  t.same(histogramIncrease(before, after), [bucket(0, 1, 100, 50), bucket(1, 10, 0, 0), bucket(10, Infinity, 1, null)]);
});

t.test('histogramIncrease takes a histogram that went back as reset', async (t) => {
  const before = [bucket(0, 1, 1000, 500), bucket(1, 10, 20, 80)];
  const after = [bucket(0, 1, 1500, 700), bucket(1, 10, 3, 9)];
  t.same(histogramIncrease(before, after), after);
});

t.test('histogramQuantile', async (t) => {
  // 96 fast in [0,1) with mean 0.25, 4 slow in [10,100) with mean 50.
  const buckets = [bucket(0, 1, 96, 24), bucket(1, 10, 0, 0), bucket(10, 100, 4, 200), bucket(100, Infinity, 0, null)];
  t.equal(histogramQuantile(buckets, 0.95), 0.25, 'bucket mean, not its bound');
  t.equal(histogramQuantile(buckets, 0.99), 50);
  t.equal(histogramMean(buckets), 224 / 100);
  t.equal(histogramQuantile([bucket(0, 1, 0, 0)], 0.99), null, 'empty');
});

t.test('histogramQuantile interpolates when buckets have no time', async (t) => {
  const buckets = [bucket(0, 10, 50, null), bucket(10, 20, 50, null)];
  t.equal(histogramQuantile(buckets, 0.5), 10);
  t.equal(histogramQuantile(buckets, 0.99), 19.8);
  t.equal(histogramQuantile([bucket(100, Infinity, 5, null)], 0.99), 100, 'overflow bucket: its lower bound');
  t.equal(histogramMean(buckets), null);
});
