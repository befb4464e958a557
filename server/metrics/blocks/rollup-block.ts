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
/** The version byte and the directory's length (4 bytes, little-endian). */
const headBytes = 5;

/** A block's metrics: by column, its step and where its parts lie, in the order they follow one another. */
type Directory = Map<string, { step: number; position: number }>;

/** Parsed directories with their bytes, newest last: the blocks of one catalog share one (a few at most). */
const directories: { bytes: Uint8Array; directory: Directory }[] = [];
const maxDirectories = 16;

/**
 * The buckets of one resolution of one database over a span (the rows `sample_rollups` would
 * hold), as one block. Each metric keeps its value count, and its sum, min and max at the metric's
 * step: the sum rather than the mean, so that integer metrics come back exact and the mean of the
 * others within half a step divided by the count. A bucket whose count is 0 has no sum, min or max.
 *
 * Layout: a version byte; the directory's length (4 bytes, little-endian) and the directory, one
 * text of `column step` pairs (parsed once for all the blocks that share it); the bucket count; the
 * buckets' places in the span (bucket index deltas) and their sample counts; per metric the lengths
 * of its four parts; then the parts, metric after metric: the sums, mins and maxes as series blocks
 * (series-block.ts) and the value counts as deltas. A reader decodes only the parts of the metrics
 * it asks for; a metric the block does not hold (added to the catalog after sealing) reads as no values.
 */
export function encodeRollupBlock(rows: readonly RollupRow[], span: BlockSpan, metrics: readonly BlockMetric[]): Uint8Array {
  const directory = utf8.encoder.encode(metrics.map(({ column, step }) => `${column} ${step}`).join(' '));
  const head = new Uint8Array(headBytes);
  head[0] = version;
  new DataView(head.buffer).setUint32(1, directory.length, true);
  const writer = new VarintWriter(rows.length * 8 + 64);
  writer.uint(rows.length);
  writeDeltas(writer, rows.map((row) => (row.bucket! - span.start) / span.width));
  writeDeltas(writer, rows.map((row) => row.samples!));
  const parts = metrics.map((metric) => encodeParts(rows, metric));
  for (const part of parts.flat()) writer.uint(part.length);
  return concatenate([head, directory, writer.finish(), ...parts.flat()]);
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
  if (block[0] !== version) throw new RangeError(`unknown rollup block version ${block[0]}`);
  const directoryEnd = headBytes + new DataView(block.buffer, block.byteOffset, block.byteLength).getUint32(1, true);
  const directory = parsedDirectory(block.subarray(headBytes, directoryEnd));
  const reader = new VarintReader(block.subarray(directoryEnd));
  const count = reader.uint();
  const places = readDeltas(reader, count);
  const samples = readDeltas(reader, count);
  const lengths: number[] = [];
  for (let part = 0; part < directory.size * 4; part++) lengths.push(reader.uint());
  // The parts end the block: their places are counted back from its end.
  const partsStart = block.length - lengths.reduce((sum, length) => sum + length, 0);
  const rows = places.map((place, index): RollupRow => (counted ? { ts: span.start + place * span.width, samples: samples[index]! } : { ts: span.start + place * span.width }));
  for (const { column } of metrics) {
    const entry = directory.get(column);
    if (entry === undefined) {
      for (const row of rows) Object.assign(row, { [`${column}_avg`]: null, [`${column}_min`]: null, [`${column}_max`]: null }, counted ? { [`${column}_count`]: null } : {});
      continue;
    }
    let start = partsStart;
    for (let part = 0; part < entry.position * 4; part++) start += lengths[part]!;
    const [sums, mins, maxes, countBytes] = lengths.slice(entry.position * 4, entry.position * 4 + 4).map((length) => block.subarray(start, (start += length)));
    const [sum, min, max] = [sums!, mins!, maxes!].map((part) => decodeSeriesBlock(part, entry.step));
    const counts = readDeltas(new VarintReader(countBytes!), count);
    const [avgKey, minKey, maxKey, countKey] = ['avg', 'min', 'max', 'count'].map((stat) => `${column}_${stat}`);
    for (let index = 0; index < count; index++) {
      const row = rows[index]!;
      const total = sum![index]!;
      row[avgKey!] = total === null ? null : total / counts[index]!;
      row[minKey!] = min![index]!;
      row[maxKey!] = max![index]!;
      if (counted) row[countKey!] = counts[index]!;
    }
  }
  return rows;
}

/** A directory's metrics, parsed once for the blocks that share its bytes (comparing bytes costs less than decoding them). */
function parsedDirectory(bytes: Uint8Array): Directory {
  const cached = directories.find((candidate) => sameBytes(candidate.bytes, bytes));
  if (cached !== undefined) return cached.directory;
  const text = utf8.decoder.decode(bytes);
  const words = text === '' ? [] : text.split(' ');
  const directory: Directory = new Map();
  for (let index = 0; index < words.length; index += 2) directory.set(words[index]!, { step: Number(words[index + 1]), position: index / 2 });
  if (directories.length >= maxDirectories) directories.shift();
  directories.push({ bytes: bytes.slice(), directory });
  return directory;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
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
