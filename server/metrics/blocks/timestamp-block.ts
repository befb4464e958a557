import { readDeltas, writeDeltas } from './delta-varints.js';
import { VarintReader, VarintWriter } from '../../storage/varint-bytes.js';

/**
 * The timestamps of one database's samples in one hour, stored once for all its series: the count,
 * then the intervals (the first from the hour's start) as delta varints, so a steady interval costs
 * about a byte for the whole hour and collection jitter a byte or two a sample.
 */
export function encodeTimestampBlock(hourStartMs: number, timestamps: readonly number[]): Uint8Array {
  const writer = new VarintWriter(timestamps.length + 8);
  writer.uint(timestamps.length);
  let previous = hourStartMs;
  const intervals = timestamps.map((ts) => {
    if (ts < previous) throw new RangeError(`timestamps must ascend from the hour's start: ${ts} after ${previous}`);
    const interval = ts - previous;
    previous = ts;
    return interval;
  });
  writeDeltas(writer, intervals);
  return writer.finish();
}

export function decodeTimestampBlock(hourStartMs: number, block: Uint8Array): number[] {
  const reader = new VarintReader(block);
  const intervals = readDeltas(reader, reader.uint());
  if (!reader.done) throw new RangeError('bytes after the end of the block');
  let ts = hourStartMs;
  return intervals.map((interval) => (ts += interval));
}
