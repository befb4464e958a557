import type { MetricCatalog } from '../../../common/metric-catalog.js';
import { VarintReader, VarintWriter } from '../../storage/varint-bytes.js';
import { decodeSeriesBlock, encodeSeriesBlock } from './series-block.js';
import { decodeTimestampBlock, encodeTimestampBlock } from './timestamp-block.js';

export const hourMs = 3_600_000;

/** A raw sample as a block holds it: its time, reachability, latency source and metric values by column. */
export type HourSample = Record<string, number | string | null> & { ts: number; reachable: number; latency_source: string | null };

const latencySources = [null, 'histogram', 'estimate'] as const;
const layoutVersion = 1;

/**
 * One database's raw samples of one hour as one block: the timestamps once (timestamp-block.ts),
 * reachability and latency source as small integers, then each catalog metric's series block at its
 * step (series-block.ts). A directory (each metric's column, step and byte length) lets a reader
 * decode only the metrics it asks for, and a metric the block does not name reads as null (a block
 * sealed before the catalog grew). The step is stored so that a later change of it cannot misread
 * an older block.
 */
export function encodeHourBlock(hourStartMs: number, samples: readonly HourSample[], catalog: MetricCatalog): Uint8Array {
  const series = catalog.map(({ column, step }) => ({ column, step, bytes: encodeSeriesBlock(samples.map((sample) => sample[column] as number | null), step) }));
  const head = new VarintWriter(256);
  head.uint(layoutVersion);
  const parts = [
    encodeTimestampBlock(hourStartMs, samples.map((sample) => sample.ts)),
    encodeSeriesBlock(samples.map((sample) => sample.reachable), 1),
    encodeSeriesBlock(samples.map((sample) => latencySourceCode(sample.latency_source)), 1),
    ...series.map(({ bytes }) => bytes),
  ];
  head.uint(series.length);
  for (const { column, step } of series) {
    const name = new TextEncoder().encode(column);
    head.uint(name.length);
    for (const byte of name) head.byte(byte);
    head.uint(stepCode(step));
  }
  for (const part of parts) head.uint(part.length);
  const start = head.finish();
  const block = new Uint8Array(start.length + parts.reduce((sum, part) => sum + part.length, 0));
  block.set(start);
  let offset = start.length;
  for (const part of parts) {
    block.set(part, offset);
    offset += part.length;
  }
  return block;
}

/** The samples of a block with these columns only (each null where the block has no such metric), oldest first. */
export function decodeHourBlock(hourStartMs: number, block: Uint8Array, columns: readonly string[]): HourSample[] {
  const reader = new VarintReader(block);
  const version = reader.uint();
  if (version !== layoutVersion) throw new RangeError(`unknown hour block layout ${version}`);
  const metrics = Array.from({ length: reader.uint() }, () => {
    const name = Uint8Array.from({ length: reader.uint() }, () => reader.byte());
    return { column: new TextDecoder().decode(name), step: stepOf(reader.uint()) };
  });
  const lengths = Array.from({ length: metrics.length + 3 }, () => reader.uint());
  let offset = block.length - lengths.reduce((sum, length) => sum + length, 0);
  const parts = lengths.map((length) => block.subarray(offset, (offset += length)));
  const timestamps = decodeTimestampBlock(hourStartMs, parts[0]!);
  const reachable = decodeSeriesBlock(parts[1]!, 1);
  const sources = decodeSeriesBlock(parts[2]!, 1);
  const samples: HourSample[] = timestamps.map((ts, index) => ({ ts, reachable: reachable[index]!, latency_source: latencySources[sources[index]!] ?? null }));
  for (const column of columns) {
    const position = metrics.findIndex((metric) => metric.column === column);
    const values = position === -1 ? undefined : decodeSeriesBlock(parts[position + 3]!, metrics[position]!.step);
    for (const [index, sample] of samples.entries()) sample[column] = values?.[index] ?? null;
  }
  return samples;
}

function latencySourceCode(source: string | null): number {
  const code = latencySources.indexOf(source as (typeof latencySources)[number]);
  if (code === -1) throw new RangeError(`unknown latency source ${source}`);
  return code;
}

/** A step of 1 or more as twice itself, a step below 1 as twice its inverse plus one: one or two bytes. */
function stepCode(step: number): number {
  return step >= 1 ? step * 2 : Math.round(1 / step) * 2 + 1;
}

function stepOf(code: number): number {
  return code % 2 === 0 ? code / 2 : 1 / ((code - 1) / 2);
}
