import type { BackgroundJob } from '../../jobs/background-job.js';
import { sessionExpiryBatch, type SessionsService } from './sessions-service.js';

/** Deletes expired sessions, one bounded delete per slice (a few milliseconds). */
export class SessionExpiryJob implements BackgroundJob {
  readonly name = 'session_expiry';
  readonly periodMs = 600_000;

  constructor(private readonly sessions: Pick<SessionsService, 'expire'>) {}

  slice(now: Date): boolean {
    return this.sessions.expire(now) === sessionExpiryBatch;
  }
}
