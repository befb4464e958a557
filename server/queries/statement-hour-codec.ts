import { unzigzag, VarintReader, VarintWriter, zigzag } from '../storage/varint-bytes.js';

/** A minute holds the statement intervals that ended within (start, start + 1 minute]. */
export const minuteMs = 60_000;
export const hourMs = 3_600_000;

/** One statement's intervals of one minute, summed; times in whole microseconds. */
export interface StatementMinute {
  /** Start of the minute (ms). */
  minute: number;
  /** Earliest start of any interval of the database that ended within the minute; null when one had none. */
  earliestStart: number | null;
  key: number;
  calls: number;
  totalUs: number;
  maxUs: number | null;
  rows: number;
  /** End of the statement's last interval within the minute (ms). */
  lastTs: number;
}

/** The minute (its start) that holds an interval ending at `ts`. */
export function minuteOf(ts: number): number {
  return Math.floor((ts - 1) / minuteMs) * minuteMs;
}

export function hourOf(minute: number): number {
  return Math.floor(minute / hourMs) * hourMs;
}

/**
 * One hour of a database's statement minutes as one blob of varints, column after column: a
 * header per minute (its offset, earliest interval start, entry count), then the statement keys
 * (delta-coded, ascending within a minute), calls, total and max time in µs, rows and the offset
 * of the last interval's end. Sorted by minute and key, so it encodes the same whatever the order given.
 */
export function encodeStatementHour(hour: number, entries: readonly StatementMinute[]): Buffer {
  const sorted = [...entries].sort((a, b) => a.minute - b.minute || a.key - b.key);
  const out = new VarintWriter();
  const minutes: StatementMinute[][] = [];
  for (const entry of sorted) {
    const last = minutes.at(-1);
    if (last !== undefined && last[0]!.minute === entry.minute) last.push(entry);
    else minutes.push([entry]);
  }
  out.uint(1);
  out.uint(minutes.length);
  for (const group of minutes) {
    const { minute, earliestStart } = group[0]!;
    out.uint((minute - hour) / minuteMs);
    out.uint(earliestStart === null ? 0 : 1 + zigzag(minute - earliestStart));
    out.uint(group.length);
  }
  for (const group of minutes) {
    let previous = 0;
    for (const { key } of group) {
      out.uint(key - previous);
      previous = key;
    }
  }
  for (const { calls } of sorted) out.uint(zigzag(calls));
  for (const { totalUs } of sorted) out.uint(zigzag(totalUs));
  for (const { maxUs } of sorted) out.uint(maxUs === null ? 0 : 1 + zigzag(maxUs));
  for (const { rows } of sorted) out.uint(zigzag(rows));
  for (const { minute, lastTs } of sorted) out.uint(lastTs - minute);
  return Buffer.from(out.finish());
}

export function decodeStatementHour(hour: number, blob: Uint8Array): StatementMinute[] {
  const input = new VarintReader(blob);
  const version = input.uint();
  if (version !== 1) throw new Error(`Unknown statement hour encoding ${version}`);
  const entries: StatementMinute[] = [];
  const minuteCount = input.uint();
  for (let m = 0; m < minuteCount; m++) {
    const minute = hour + input.uint() * minuteMs;
    const startCode = input.uint();
    const earliestStart = startCode === 0 ? null : minute - unzigzag(startCode - 1);
    const count = input.uint();
    for (let i = 0; i < count; i++) entries.push({ minute, earliestStart, key: 0, calls: 0, totalUs: 0, maxUs: null, rows: 0, lastTs: 0 });
  }
  let previous = 0;
  for (const [i, entry] of entries.entries()) {
    if (i > 0 && entries[i - 1]!.minute !== entry.minute) previous = 0;
    entry.key = previous += input.uint();
  }
  for (const entry of entries) entry.calls = unzigzag(input.uint());
  for (const entry of entries) entry.totalUs = unzigzag(input.uint());
  for (const entry of entries) {
    const code = input.uint();
    entry.maxUs = code === 0 ? null : unzigzag(code - 1);
  }
  for (const entry of entries) entry.rows = unzigzag(input.uint());
  for (const entry of entries) entry.lastTs = entry.minute + input.uint();
  return entries;
}

/** Folds `more` into `into` (same hour): a statement's minute present in both is summed. */
export function mergeStatementMinutes(into: StatementMinute[], more: readonly StatementMinute[]): StatementMinute[] {
  const byMinuteKey = new Map(into.map((entry) => [`${entry.minute}:${entry.key}`, entry]));
  const earliestByMinute = new Map<number, number | null>();
  for (const entry of [...into, ...more]) {
    const seen = earliestByMinute.get(entry.minute);
    earliestByMinute.set(entry.minute, seen === undefined ? entry.earliestStart : earlier(seen, entry.earliestStart));
  }
  for (const entry of more) {
    const existing = byMinuteKey.get(`${entry.minute}:${entry.key}`);
    if (existing === undefined) {
      const added = { ...entry };
      into.push(added);
      byMinuteKey.set(`${entry.minute}:${entry.key}`, added);
      continue;
    }
    existing.calls += entry.calls;
    existing.totalUs += entry.totalUs;
    existing.maxUs = existing.maxUs === null ? entry.maxUs : entry.maxUs === null ? existing.maxUs : Math.max(existing.maxUs, entry.maxUs);
    existing.rows += entry.rows;
    existing.lastTs = Math.max(existing.lastTs, entry.lastTs);
  }
  for (const entry of into) entry.earliestStart = earliestByMinute.get(entry.minute)!;
  return into;
}

/** The earlier of two interval starts; null (an interval with no known start) wins. */
function earlier(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : Math.min(a, b);
}
