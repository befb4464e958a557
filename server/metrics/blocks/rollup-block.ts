import { VarintReader, VarintWriter } from '../../storage/varint-bytes.js';
import { readDeltas, writeDeltas } from './delta-varints.js';
import { decodeSeriesBlock, encodeSeriesBlock } from './series-block.js';

/** A rollup bucket as `sample_rollups` holds it: its start, its sample count and `<column>_avg|_min|_max|_count` per metric. */
export type RollupRow = Record<string, number | null>;

/** A metric a block holds: its rollup columns' prefix and the step its values are stored at. */
export interface BlockMetric {
  column: string;
  step: number;
}

/** Where a block's buckets lie: the span's start and the bucket width. */
export interface BlockSpan {
  start: number;
  width: number;
}

const version = 1;
const utf8 = { encoder: new TextEncoder(), decoder: new TextDecoder() };

/**
 * The buckets of one resolution of one database over a span (the rows `sample_rollups` would
 * hold), as one block. Each metric keeps its value count, and its sum, min and max at the metric's
 * step: the sum rather than the mean, so that integer metrics come back exact and the mean of the
 * others within half a step divided by the count. A bucket whose count is 0 has no sum, min or max.
 *
 * Layout: a version byte; the bucket count; the buckets' places in the span (bucket index deltas)
 * and their sample counts; a directory (per metric its column, its step and the lengths of its four
 * parts); then the parts, metric after metric: the sums, mins and maxes as series blocks
 * (series-block.ts) and the value counts as deltas. A reader decodes only the parts of the metrics
 * it asks for; a metric the block does not hold (added to the catalog after sealing) reads as no values.
 */
export function encodeRollupBlock(rows: readonly RollupRow[], span: BlockSpan, metrics: readonly BlockMetric[]): Uint8Array {
  const writer = new VarintWriter(rows.length * 8 + 64);
  writer.byte(version);
  writer.uint(rows.length);
  writeDeltas(writer, rows.map((row) => (row.bucket! - span.start) / span.width));
  writeDeltas(writer, rows.map((row) => row.samples!));
  const parts = metrics.map((metric) => encodeParts(rows, metric));
  writer.uint(metrics.length);
  for (const [index, { column, step }] of metrics.entries()) {
    writeText(writer, column);
    writeText(writer, String(step));
    for (const part of parts[index]!) writer.uint(part.length);
  }
  return concatenate([writer.finish(), ...parts.flat()]);
}

/** One metric's parts: its values' sums, mins and maxes, and their counts. */
function encodeParts(rows: readonly RollupRow[], { column, step }: BlockMetric): Uint8Array[] {
  const counts = rows.map((row) => {
    const count = row[`${column}_count`];
    // Buckets folded before value counts were kept (migration 0009) weigh by their sample count.
    return count ?? (row[`${column}_avg`] === null || row[`${column}_avg`] === undefined ? 0 : row.samples!);
  });
  const valued = (value: number | null | undefined, index: number) => (counts[index] === 0 || value === undefined ? null : value);
  const countWriter = new VarintWriter(rows.length + 8);
  writeDeltas(countWriter, counts);
  return [
    encodeSeriesBlock(
      rows.map((row, index) => valued(row[`${column}_avg`] === null ? null : row[`${column}_avg`]! * counts[index]!, index)),
      step,
    ),
    encodeSeriesBlock(
      rows.map((row, index) => valued(row[`${column}_min`], index)),
      step,
    ),
    encodeSeriesBlock(
      rows.map((row, index) => valued(row[`${column}_max`], index)),
      step,
    ),
    countWriter.finish(),
  ];
}

/**
 * The buckets of a block with these metrics' `_avg|_min|_max` (and, when `counted`, `samples` and
 * each `_count`), the bucket start as `ts`, oldest first.
 */
export function decodeRollupBlock(block: Uint8Array, span: BlockSpan, metrics: readonly Pick<BlockMetric, 'column'>[], counted: boolean): RollupRow[] {
  const reader = new VarintReader(block);
  const found = reader.byte();
  if (found !== version) throw new RangeError(`unknown rollup block version ${found}`);
  const count = reader.uint();
  const places = readDeltas(reader, count);
  const samples = readDeltas(reader, count);
  const rows = places.map((place, index): RollupRow => (counted ? { ts: span.start + place * span.width, samples: samples[index]! } : { ts: span.start + place * span.width }));
  const directory = new Map<string, { step: number; lengths: number[] }>();
  for (let remaining = reader.uint(); remaining > 0; remaining--) {
    const column = readText(reader);
    directory.set(column, { step: Number(readText(reader)), lengths: [reader.uint(), reader.uint(), reader.uint(), reader.uint()] });
  }
  // The parts follow the directory, in its order: their places are counted back from the end.
  const offsets = new Map<string, number>();
  let offset = block.length - [...directory.values()].reduce((total, { lengths }) => total + lengths.reduce((sum, length) => sum + length, 0), 0);
  for (const [column, { lengths }] of directory) {
    offsets.set(column, offset);
    offset += lengths.reduce((sum, length) => sum + length, 0);
  }
  for (const { column } of metrics) {
    const entry = directory.get(column);
    if (entry === undefined) {
      for (const row of rows) Object.assign(row, { [`${column}_avg`]: null, [`${column}_min`]: null, [`${column}_max`]: null }, counted ? { [`${column}_count`]: null } : {});
      continue;
    }
    let start = offsets.get(column)!;
    const [sums, mins, maxes, countBytes] = entry.lengths.map((length) => block.subarray(start, (start += length)));
    const [sum, min, max] = [sums!, mins!, maxes!].map((part) => decodeSeriesBlock(part, entry.step));
    const counts = readDeltas(new VarintReader(countBytes!), count);
    for (const [index, row] of rows.entries()) {
      const total = sum![index]!;
      row[`${column}_avg`] = total === null ? null : total / counts[index]!;
      row[`${column}_min`] = min![index]!;
      row[`${column}_max`] = max![index]!;
      if (counted) row[`${column}_count`] = counts[index]!;
    }
  }
  return rows;
}

function concatenate(parts: readonly Uint8Array[]): Uint8Array {
  const whole = new Uint8Array(parts.reduce((total, part) => total + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    whole.set(part, offset);
    offset += part.length;
  }
  return whole;
}

function writeText(writer: VarintWriter, text: string): void {
  const bytes = utf8.encoder.encode(text);
  writer.uint(bytes.length);
  for (const byte of bytes) writer.byte(byte);
}

function readText(reader: VarintReader): string {
  const length = reader.uint();
  return utf8.decoder.decode(Uint8Array.from({ length }, () => reader.byte()));
}
