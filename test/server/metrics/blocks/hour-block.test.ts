import t, { type Test } from 'tap';
import { metricCatalog } from '../../../../common/metric-catalog.js';
import { decodeHourBlock, encodeHourBlock, hourMs, type HourSample } from '../../../../server/metrics/blocks/hour-block.js';

const hour = Math.floor(Date.UTC(2026, 10, 24, 10) / hourMs) * hourMs;
const columns = metricCatalog.map((metric) => metric.column);

/** An hour of samples every 10 s: some unreachable (every metric null), one metric never measured. */
function hourOfSamples(count: number): HourSample[] {
  return Array.from({ length: count }, (_, i) => {
    const reachable = i % 17 === 5 ? 0 : 1;
    const sample: HourSample = { ts: hour + i * 10_000 + (i % 3), reachable, latency_source: reachable ? (i % 2 ? 'histogram' : 'estimate') : null };
    for (const [index, { column, step }] of metricCatalog.entries()) sample[column] = reachable && index !== 2 ? (i * 13 + index) * step * 7 + step / 3 : null;
    return sample;
  });
}

function checkWithinStep(t: Test, decoded: HourSample[], samples: HourSample[]): void {
  t.same(decoded.map(({ ts, reachable, latency_source }) => ({ ts, reachable, latency_source })), samples.map(({ ts, reachable, latency_source }) => ({ ts, reachable, latency_source })));
  for (const { column, step } of metricCatalog) {
    const off = samples.filter((sample, i) => (sample[column] === null ? decoded[i]![column] !== null : Math.abs((decoded[i]![column] as number) - (sample[column] as number)) > step / 2 + 1e-9));
    t.equal(off.length, 0, `${column}: every value within half a step, nulls kept`);
  }
}

t.test('an hour of samples comes back within each step, nulls and an all-null metric kept', async (t) => {
  const samples = hourOfSamples(360);
  checkWithinStep(t, decodeHourBlock(hour, encodeHourBlock(hour, samples, metricCatalog), columns), samples);
});

t.test('a single sample, and an empty hour', async (t) => {
  const samples = hourOfSamples(1);
  checkWithinStep(t, decodeHourBlock(hour, encodeHourBlock(hour, samples, metricCatalog), columns), samples);
  t.same(decodeHourBlock(hour, encodeHourBlock(hour, [], metricCatalog), columns), []);
});

t.test('only the columns asked for are decoded; a metric the block does not name reads as null', async (t) => {
  const samples = hourOfSamples(30);
  const older = metricCatalog.slice(0, 5);
  const block = encodeHourBlock(hour, samples, older);
  const asked = [older[1]!.column, metricCatalog[20]!.column];
  const decoded = decodeHourBlock(hour, block, asked);
  t.same(Object.keys(decoded[0]!).sort(), ['latency_source', 'reachable', 'ts', ...asked].sort());
  t.ok(decoded.every((sample) => sample[asked[1]!] === null), 'a metric added after the block was sealed reads as null');
  t.ok(decoded.every((sample, i) => sample[asked[0]!] === (samples[i]![asked[0]!] === null ? null : decoded[i]![asked[0]!])));
  t.equal(decoded[1]![asked[0]!], Math.round((samples[1]![asked[0]!] as number) / older[1]!.step) * older[1]!.step);
});

t.test('the step stored in the block decodes it, whatever the catalog says now', async (t) => {
  const samples = hourOfSamples(10);
  const coarse = metricCatalog.map((metric) => ({ ...metric, step: metric.step < 1 ? 0.1 : 2 }));
  const decoded = decodeHourBlock(hour, encodeHourBlock(hour, samples, coarse), columns);
  for (const { column, step } of coarse) {
    t.ok(samples.every((sample, i) => sample[column] === null || Math.abs((decoded[i]![column] as number) - (sample[column] as number)) <= step / 2 + 1e-9), column);
  }
});

t.test('a block of another layout or with an unknown latency source is refused', async (t) => {
  const block = encodeHourBlock(hour, hourOfSamples(3), metricCatalog);
  block[0] = 9;
  t.throws(() => decodeHourBlock(hour, block, columns), /layout 9/);
  t.throws(() => encodeHourBlock(hour, [{ ...hourOfSamples(1)[0]!, latency_source: 'guess' }], metricCatalog), /latency source guess/);
});
