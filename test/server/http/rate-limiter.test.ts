import t from 'tap';
import { RateLimiter } from '../../../server/http/rate-limiter.js';

const now = Date.parse('2026-11-22T10:30:00Z');

t.test('a flood of distinct client addresses keeps the limiter bounded and refuses no real principal', async (t) => {
  const maxAddresses = 10_000;
  const limiter = new RateLimiter(maxAddresses);
  for (let i = 0; i < 99; i++) limiter.takeForPrincipal('api:sa:sa_busy', 100, now);
  limiter.takeForPrincipal('api:usr:usr_quiet', 100, now);

  for (let i = 0; i < 100_000; i++) {
    const decision = limiter.takeForAddress(`api:2001:db8:${(i >> 16).toString(16)}:${(i & 0xffff).toString(16)}`, 100, now);
    if (!decision.allowed) t.fail(`address ${i} was refused on its first request`);
  }
  t.ok(limiter.trackedAddresses <= maxAddresses, `at most ${maxAddresses} addresses are tracked (${limiter.trackedAddresses})`);

  const busy = limiter.takeForPrincipal('api:sa:sa_busy', 100, now);
  t.same([busy.allowed, busy.remaining], [true, 0], 'a principal keeps its exact count through the flood: its 100th request passes');
  t.equal(limiter.takeForPrincipal('api:sa:sa_busy', 100, now).allowed, false, 'and its 101st is refused');
  t.equal(limiter.takeForPrincipal('api:usr:usr_quiet', 100, now).remaining, 98, 'a quiet principal is not forgotten either');
});

t.test('an address keeps its count while it is among the recent ones', async (t) => {
  const limiter = new RateLimiter(3);
  for (let i = 0; i < 5; i++) limiter.takeForAddress('api:192.0.2.1', 5, now);
  for (const other of ['api:192.0.2.2', 'api:192.0.2.3']) limiter.takeForAddress(other, 5, now);
  t.equal(limiter.takeForAddress('api:192.0.2.1', 5, now).allowed, false, 'its sixth request is refused');
  t.equal(limiter.trackedAddresses, 3);
});

t.test('a new window starts every counter afresh', async (t) => {
  const limiter = new RateLimiter();
  t.equal(limiter.takeForPrincipal('api:sa:sa_a', 1, now).allowed, true);
  t.equal(limiter.takeForPrincipal('api:sa:sa_a', 1, now).allowed, false);
  limiter.takeForAddress('api:192.0.2.1', 1, now);
  const nextHour = now + 3_600_000;
  t.equal(limiter.takeForPrincipal('api:sa:sa_a', 1, nextHour).allowed, true);
  t.equal(limiter.takeForAddress('api:192.0.2.1', 1, nextHour).allowed, true);
  t.equal(limiter.trackedAddresses, 1);
});
