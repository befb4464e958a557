import t from 'tap';
import { decodeStatementHour, encodeStatementHour, hourMs, mergeStatementMinutes, minuteOf, type StatementMinute } from '../../../server/queries/statement-hour-codec.js';

const hour = Date.parse('2026-11-22T12:00:00Z');
const entry = (minute: number, key: number, more: Partial<StatementMinute> = {}): StatementMinute => ({
  minute: hour + minute * 60_000,
  earliestStart: hour + minute * 60_000 - 10_000,
  key,
  calls: 3,
  totalUs: 1_234_567,
  maxUs: 900_001,
  rows: 3,
  lastTs: hour + minute * 60_000 + 60_000,
  ...more,
});

// The earliest start is the minute's: every entry of a minute carries the same.
t.test('an hour round-trips whatever the order, nulls, negatives and values past 2^32 included', async (t) => {
  const entries = [
    entry(59, 7, { lastTs: hour + 59 * 60_000 + 1 }),
    entry(0, 900_000_000_000, { earliestStart: null, maxUs: null }),
    entry(0, 3, { earliestStart: null, calls: -2, totalUs: 2 ** 40, rows: 0 }),
    entry(17, 3, { earliestStart: hour + 17 * 60_000 + 30_000 }),
  ];
  const decoded = decodeStatementHour(hour, encodeStatementHour(hour, entries));
  t.same(decoded, [...entries].sort((a, b) => a.minute - b.minute || a.key - b.key));
});

t.test('a statement minute costs a few bytes', async (t) => {
  const entries = Array.from({ length: 60 }, (_, m) => Array.from({ length: 20 }, (_, k) => entry(m, 1000 + k * 3))).flat();
  const bytes = encodeStatementHour(hour, entries).length;
  t.ok(bytes / entries.length < 16, `${(bytes / entries.length).toFixed(1)} B per statement-minute`);
});

t.test('merging sums a statement minute present in both and keeps the earliest start of each minute', async (t) => {
  const merged = mergeStatementMinutes([entry(1, 5), entry(2, 5)], [entry(1, 5, { maxUs: 2_000_000, lastTs: hour + 61_000, earliestStart: hour }), entry(1, 6, { maxUs: null }), entry(2, 9, { earliestStart: null })]);
  t.match(merged.find((e) => e.minute === hour + 60_000 && e.key === 5), { calls: 6, totalUs: 2_469_134, maxUs: 2_000_000, rows: 6, lastTs: hour + 120_000, earliestStart: hour });
  t.equal(merged.find((e) => e.key === 6)!.earliestStart, hour, 'the minute has one earliest start');
  t.equal(merged.find((e) => e.minute === hour + 120_000 && e.key === 5)!.earliestStart, null, 'an interval with no start makes it unknown');
});

t.test('a minute holds the intervals that ended within (start, start + 1 minute]', async (t) => {
  t.equal(minuteOf(hour), hour - 60_000);
  t.equal(minuteOf(hour + 1), hour);
  t.equal(minuteOf(hour + hourMs), hour + hourMs - 60_000);
});

t.test('a truncated or unknown blob is refused', async (t) => {
  const blob = encodeStatementHour(hour, [entry(0, 1)]);
  t.throws(() => decodeStatementHour(hour, blob.subarray(0, blob.length - 1)), RangeError);
  t.throws(() => decodeStatementHour(hour, Buffer.from([2, 0])), /encoding 2/);
});
