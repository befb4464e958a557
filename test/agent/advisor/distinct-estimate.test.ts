import t from 'tap';
import { estimateDistinct } from '../../../agent/advisor/distinct-estimate.js';

t.test('Duj1 from a sample', async (t) => {
  t.equal(estimateDistinct({ rows: 1000, distinct: 10, singletons: 0 }, 1_000_000), 10, 'a low-cardinality column saturates the sample');
  const unique = estimateDistinct({ rows: 1000, distinct: 1000, singletons: 1000 }, 1_000_000);
  t.equal(unique, 1_000_000, 'all values seen once: about one per row');
  t.equal(estimateDistinct({ rows: 500, distinct: 120, singletons: 3 }, 500), 120, 'the sample is the table');
  t.equal(estimateDistinct({ rows: 0, distinct: 0, singletons: 0 }, 100), 1);
  const mid = estimateDistinct({ rows: 30_000, distinct: 20_000, singletons: 10_000 }, 200_000);
  t.ok(mid > 20_000 && mid < 40_000, `${mid}`);
});
