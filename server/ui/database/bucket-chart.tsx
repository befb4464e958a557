import type { QueryBucket } from './database-sections-source.js';

const width = 480;
const height = 96;

/**
 * A small bar chart of one measure over the slices, drawn on the server (no script): a slice in which
 * the statement did not run has no bar, and the label says the largest value so the bars have a scale.
 */
export function BucketChart({ label, buckets, value, unit }: { label: string; buckets: QueryBucket[]; value: (bucket: QueryBucket) => number | null; unit: (value: number) => string }) {
  const values = buckets.map(value);
  const largest = Math.max(0, ...values.map((entry) => entry ?? 0));
  const slot = width / buckets.length;
  const description = largest === 0 ? `${label}: did not run in this range` : `${label}: up to ${unit(largest)} per slice`;
  return (
    <figure class="bucket-chart">
      <figcaption>{description}</figcaption>
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={description} preserveAspectRatio="none">
        <line x1={0} y1={height - 0.5} x2={width} y2={height - 0.5} class="axis" />
        {values.map((entry, index) =>
          entry === null || largest === 0 ? null : (
            <rect x={index * slot + 1} width={Math.max(1, slot - 2)} y={height - (entry / largest) * (height - 4)} height={(entry / largest) * (height - 4)}>
              <title>{`${buckets[index]!.from.toISOString().slice(0, 16).replace('T', ' ')} UTC: ${unit(entry)}`}</title>
            </rect>
          ),
        )}
      </svg>
    </figure>
  );
}
