import { readDeltas, writeDeltas } from './delta-varints.js';
import { VarintReader, VarintWriter } from '../../storage/varint-bytes.js';

/** Which values of a block are there: none, all, or those a bitmap marks. */
const enum Presence {
  None = 0,
  All = 1,
  Bitmap = 2,
}

/**
 * One series' values over a span (one hour of one metric of one database), null where a sample has
 * none, at the metric's stored step (`step` in the catalog): each value is kept as the nearest whole
 * number of steps, so it comes back off by at most half a step. The timestamps are not here: a
 * database-hour's are stored once (timestamp-block.ts) for all its series.
 *
 * Layout: the count as a varint; a presence byte, then for `Bitmap` a bit per value (low bit first);
 * then the present values' whole steps as delta varints (delta-varints.ts).
 */
export function encodeSeriesBlock(values: readonly (number | null)[], step: number): Uint8Array {
  const scale = stepScale(step);
  const writer = new VarintWriter(values.length * 2 + 8);
  writer.uint(values.length);
  const present: number[] = [];
  for (const value of values) if (value !== null) present.push(scale.toSteps(value));
  if (present.length === 0) {
    writer.byte(Presence.None);
  } else if (present.length === values.length) {
    writer.byte(Presence.All);
  } else {
    writer.byte(Presence.Bitmap);
    for (let start = 0; start < values.length; start += 8) {
      let bits = 0;
      for (let bit = 0; bit < 8 && start + bit < values.length; bit++) if (values[start + bit] !== null) bits |= 1 << bit;
      writer.byte(bits);
    }
  }
  writeDeltas(writer, present);
  return writer.finish();
}

export function decodeSeriesBlock(block: Uint8Array, step: number): (number | null)[] {
  const scale = stepScale(step);
  const reader = new VarintReader(block);
  const count = reader.uint();
  const presence = reader.byte();
  if (presence !== Presence.None && presence !== Presence.All && presence !== Presence.Bitmap) throw new RangeError(`unknown presence ${presence}`);
  const values: (number | null)[] = new Array<number | null>(count).fill(null);
  if (presence === Presence.All) {
    const steps = readDeltas(reader, count);
    for (let index = 0; index < count; index++) values[index] = scale.fromSteps(steps[index]!);
  } else if (presence === Presence.Bitmap) {
    const bitmap = new Uint8Array(Math.ceil(count / 8));
    for (let index = 0; index < bitmap.length; index++) bitmap[index] = reader.byte();
    const present: number[] = [];
    for (let index = 0; index < count; index++) if ((bitmap[index >> 3]! & (1 << (index & 7))) !== 0) present.push(index);
    const steps = readDeltas(reader, present.length);
    for (let position = 0; position < present.length; position++) values[present[position]!] = scale.fromSteps(steps[position]!);
  }
  if (!reader.done) throw new RangeError('bytes after the end of the block');
  return values;
}

interface StepScale {
  toSteps: (value: number) => number;
  fromSteps: (steps: number) => number;
}

/** A step below 1 works through its inverse, so that 12,345 steps of 0.001 come back as exactly 12.345. */
function stepScale(step: number): StepScale {
  if (step >= 1) return { toSteps: (value) => Math.round(value / step), fromSteps: (steps) => steps * step };
  const inverse = Math.round(1 / step);
  if (Math.abs(inverse * step - 1) > 1e-12) throw new RangeError(`a step below 1 must divide 1: ${step}`);
  return { toSteps: (value) => Math.round(value * inverse), fromSteps: (steps) => steps / inverse };
}
