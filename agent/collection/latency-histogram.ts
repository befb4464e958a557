import type { HistogramBucket } from './collector.js';

/**
 * The interval's histogram from two cumulative ones. The engine resets a histogram as a whole
 * (restart, flush), so if any bucket went down the current histogram is all since the reset.
 */
export function histogramIncrease(
  previous: readonly HistogramBucket[],
  current: readonly HistogramBucket[],
): HistogramBucket[] {
  const before = new Map(previous.map((bucket) => [bucket.upperMs, bucket]));
  const reset = current.some((bucket) => bucket.count < (before.get(bucket.upperMs)?.count ?? 0));
  if (reset) return [...current];
  return current.map((bucket) => {
    const old = before.get(bucket.upperMs);
    return {
      ...bucket,
      count: bucket.count - (old?.count ?? 0),
      sumMs: bucket.sumMs === null || old?.sumMs === null ? null : bucket.sumMs - (old?.sumMs ?? 0),
    };
  });
}

export function histogramCount(buckets: readonly HistogramBucket[]): number {
  return buckets.reduce((sum, bucket) => sum + bucket.count, 0);
}

/** Mean duration, when every bucket that counted something also reports its time. */
export function histogramMean(buckets: readonly HistogramBucket[]): number | null {
  const filled = buckets.filter((bucket) => bucket.count > 0);
  if (filled.length === 0 || filled.some((bucket) => bucket.sumMs === null)) return null;
  return filled.reduce((sum, bucket) => sum + (bucket.sumMs ?? 0), 0) / histogramCount(filled);
}

/**
 * The duration below which a fraction `p` of the counted statements fall, or null when the
 * histogram is empty. Inside the bucket holding that rank, the bucket's own mean is the best
 * point we have when the engine reports per-bucket time (MariaDB's buckets span a decade, so
 * interpolating between the bounds would be far off); otherwise interpolate linearly.
 */
export function histogramQuantile(buckets: readonly HistogramBucket[], p: number): number | null {
  const total = histogramCount(buckets);
  if (total === 0) return null;
  const rank = p * total;
  let below = 0;
  for (const bucket of buckets) {
    if (bucket.count === 0) continue;
    if (below + bucket.count >= rank) return pointInBucket(bucket, (rank - below) / bucket.count);
    below += bucket.count;
  }
  return null;
}

function pointInBucket(bucket: HistogramBucket, fraction: number): number {
  if (bucket.sumMs !== null) {
    return Math.min(Math.max(bucket.sumMs / bucket.count, bucket.lowerMs), bucket.upperMs);
  }
  if (!Number.isFinite(bucket.upperMs)) return bucket.lowerMs;
  return bucket.lowerMs + (bucket.upperMs - bucket.lowerMs) * fraction;
}
