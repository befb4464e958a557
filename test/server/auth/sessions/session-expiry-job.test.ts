import t from 'tap';
import { operatorOrigin } from '../../../../server/auth/audit/audit-origin.js';
import { SessionExpiryJob } from '../../../../server/auth/sessions/session-expiry-job.js';
import { runPass } from '../../../../server/jobs/background-job.js';
import { createPasswordUser, signIn } from '../../../helpers/sign-in.js';
import { createTenant, startTestServer } from '../../../helpers/test-server.js';

const minute = 60_000;

t.test('expired sessions are deleted in bounded slices by a background job, under each organization’s settings', async (t) => {
  const start = new Date('2026-11-24T09:00:00Z');
  const server = await startTestServer({ now: start });
  t.teardown(server.close);
  const { sessions, organizationSettings } = server.services.accounts;
  const strict = createTenant(server.services, start, 'pro');
  const lenient = createTenant(server.services, start, 'pro');
  organizationSettings.update(operatorOrigin(strict.orgId), { session_idle_timeout_minutes: 5 }, start);
  organizationSettings.update(operatorOrigin(lenient.orgId), { session_idle_timeout_minutes: 60, session_max_duration_hours: 1 }, start);
  const strictUser = await createPasswordUser(server.services, strict.orgId, 'member', start);
  const lenientUser = await createPasswordUser(server.services, lenient.orgId, 'member', start);
  for (let i = 0; i < 3; i++) await signIn(server, strictUser.email);
  await signIn(server, lenientUser.email);
  const count = (userId: string) => server.db.prepare<[string], number>('SELECT count(*) FROM sessions WHERE user_id = ?').pluck().get(userId)!;

  t.equal(sessions.expire(new Date(start.getTime() + 5 * minute - 1)), 0, 'nothing is expired a millisecond before the idle timeout');
  const afterIdle = new Date(start.getTime() + 5 * minute);
  t.equal(sessions.expire(afterIdle, 2), 2, 'at most one batch per call');
  t.equal(sessions.expire(afterIdle, 2), 1);
  t.equal(count(strictUser.userId), 0, 'idle for 5 minutes in the strict organization: gone');
  t.equal(count(lenientUser.userId), 1, 'the lenient organization’s session stays');

  server.clock.now = new Date(start.getTime() + 59 * minute);
  const kept = await signIn(server, lenientUser.email);
  t.equal((await server.request('GET', '/v1/user', { headers: kept.headers() })).status, 200);
  runPass(new SessionExpiryJob(sessions), new Date(start.getTime() + 60 * minute));
  t.equal(count(lenientUser.userId), 1, 'the job deletes the session past its maximum duration and keeps the one signed in since');
  t.ok(server.backgroundJobs.some((job) => job instanceof SessionExpiryJob), 'the server schedules the job');
});
