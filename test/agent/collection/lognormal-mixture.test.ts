import t from 'tap';
import { mixtureQuantile, normalCdf } from '../../../agent/collection/lognormal-mixture.js';

t.test('normalCdf', async (t) => {
  t.ok(Math.abs(normalCdf(0) - 0.5) < 1e-7);
  t.ok(Math.abs(normalCdf(1.6448536) - 0.95) < 1e-6);
  t.ok(Math.abs(normalCdf(-2.3263479) - 0.01) < 1e-6);
});

t.test('a single lognormal gives its closed-form percentiles', async (t) => {
  const meanMs = 10;
  const stddevMs = 5;
  const sigma = Math.sqrt(Math.log(1 + (stddevMs / meanMs) ** 2));
  const mu = Math.log(meanMs) - sigma ** 2 / 2;
  const p95 = mixtureQuantile([{ weight: 100, meanMs, stddevMs }], 0.95);
  const p99 = mixtureQuantile([{ weight: 100, meanMs, stddevMs }], 0.99);
  t.ok(Math.abs((p95 ?? 0) - Math.exp(mu + 1.6448536 * sigma)) < 1e-4, `p95 ${p95}`);
  t.ok(Math.abs((p99 ?? 0) - Math.exp(mu + 2.3263479 * sigma)) < 1e-4, `p99 ${p99}`);
});

t.test('a mixture puts p99 in the slow group when it holds more than 1% of calls', async (t) => {
  const components = [
    { weight: 970, meanMs: 0.05, stddevMs: 0.02 },
    { weight: 30, meanMs: 50, stddevMs: 1 },
  ];
  const p95 = mixtureQuantile(components, 0.95) ?? NaN;
  const p99 = mixtureQuantile(components, 0.99) ?? NaN;
  t.ok(p95 < 0.2, `p95 ${p95} in the fast group`);
  t.ok(p99 > 45 && p99 < 55, `p99 ${p99} in the slow group`);
});

t.test('statements without a deviation are point masses at their mean', async (t) => {
  const components = [
    { weight: 90, meanMs: 1, stddevMs: 0 },
    { weight: 10, meanMs: 20, stddevMs: 0 },
  ];
  t.ok(Math.abs((mixtureQuantile(components, 0.5) ?? NaN) - 1) < 1e-9);
  t.ok(Math.abs((mixtureQuantile(components, 0.95) ?? NaN) - 20) < 1e-9);
});

t.test('percentiles never decrease with p', async (t) => {
  const components = [
    { weight: 3, meanMs: 2, stddevMs: 7 },
    { weight: 11, meanMs: 0.3, stddevMs: 0.1 },
    { weight: 1, meanMs: 400, stddevMs: 0 },
    { weight: 5, meanMs: 0, stddevMs: 0 },
  ];
  let last = 0;
  for (let p = 0.05; p < 1; p += 0.01) {
    const value = mixtureQuantile(components, p) ?? NaN;
    t.ok(value >= last, `p=${p.toFixed(2)}: ${value} >= ${last}`);
    last = value;
  }
});

t.test('no calls, no percentile', async (t) => {
  t.equal(mixtureQuantile([], 0.95), null);
  t.equal(mixtureQuantile([{ weight: 0, meanMs: 3, stddevMs: 1 }], 0.95), null);
});
