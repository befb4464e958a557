import { unzigzag, zigzag, type VarintReader, type VarintWriter } from '../../storage/varint-bytes.js';

/** The largest magnitude a sequence may hold: the zigzag of a difference of two stays exact in a double. */
export const maxMagnitude = 2 ** 51;

/**
 * Writes integers as the zigzag varints of their differences (the first against 0), so slowly
 * moving series take a byte or two a value. A run of equal neighbours is a 0 and the run's length
 * less one: a constant hour of 360 values takes a few bytes. The count is the caller's to store.
 */
export function writeDeltas(writer: VarintWriter, values: readonly number[]): void {
  let previous = 0;
  for (let index = 0; index < values.length; ) {
    const value = values[index]!;
    if (!Number.isSafeInteger(value) || Math.abs(value) > maxMagnitude) throw new RangeError(`not storable as a block integer: ${value}`);
    if (value !== previous) {
      writer.uint(zigzag(value - previous));
      previous = value;
      index++;
      continue;
    }
    let run = 1;
    while (index + run < values.length && values[index + run] === previous) run++;
    writer.uint(0);
    writer.uint(run - 1);
    index += run;
  }
}

/** Reads `count` integers written by writeDeltas. */
export function readDeltas(reader: VarintReader, count: number): number[] {
  const values: number[] = new Array<number>(count);
  let previous = 0;
  for (let index = 0; index < count; ) {
    const token = reader.uint();
    if (token !== 0) {
      previous += unzigzag(token);
      values[index++] = previous;
      continue;
    }
    const run = reader.uint() + 1;
    if (index + run > count) throw new RangeError('run past the end of the block');
    values.fill(previous, index, index + run);
    index += run;
  }
  return values;
}
