import t from 'tap';
import { IsoTimestamps } from '../../../server/metrics/iso-timestamps.js';

t.test('times read as Date#toISOString writes them, across days, before 1970 and past year 9999', async (t) => {
  const timestamps = new IsoTimestamps();
  const times = [
    ...Array.from({ length: 5_000 }, (_, i) => Date.parse('2026-11-23T22:00:00Z') + i * 7_919 + (i % 1000)),
    0,
    -1,
    -86_400_001,
    253_402_300_799_999,
    253_402_300_800_000,
    8.64e15,
    -8.64e15,
    Date.parse('2026-11-24T00:00:00Z'),
  ];
  const wrong = times.filter((ms) => timestamps.of(ms) !== new Date(ms).toISOString());
  t.same(wrong.map((ms) => `${timestamps.of(ms)} for ${new Date(ms).toISOString()}`), []);
});
