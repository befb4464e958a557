import t from 'tap';
import { RefusalSampler } from '../../../../server/auth/organizations/refusal-sampler.js';

t.test('one recorded refusal per actor per window, the next one counting those left out', async (t) => {
  const sampler = new RefusalSampler(600_000);
  t.equal(sampler.take('usr_a', 0), 0, 'the first is recorded');
  t.equal(sampler.take('usr_a', 1_000), undefined);
  t.equal(sampler.take('usr_a', 599_999), undefined);
  t.equal(sampler.take('sa_b', 2_000), 0, 'another actor has its own window');
  t.equal(sampler.take('usr_a', 600_000), 2, 'a new window: recorded, with the two left out');
  t.equal(sampler.take('usr_a', 600_001), undefined);
  t.equal(sampler.take('usr_a', 5_000_000), 1);
});

t.test('tracks a bounded number of actors', async (t) => {
  const sampler = new RefusalSampler(600_000);
  for (let i = 0; i <= 10_000; i++) sampler.take(`usr_${i}`, 0);
  t.equal(sampler.take('usr_0', 1), 0, 'the least recently refused actor was forgotten: its next refusal is recorded early');
  t.equal(sampler.take('usr_10000', 1), undefined, 'a recent one is still tracked');
});
