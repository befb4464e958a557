import type { BackgroundJob } from '../../jobs/background-job.js';
import type { SamlRepository } from './saml-repository.js';

/** Rows one slice deletes at most from each table: a bounded delete of a few milliseconds. */
export const samlExpiryBatch = 1000;

/** Forgets unanswered AuthnRequests and used assertions once they expired (a replay is refused by then anyway). */
export class SamlExpiryJob implements BackgroundJob {
  readonly name = 'saml_expiry';
  readonly periodMs = 600_000;

  constructor(private readonly repository: Pick<SamlRepository, 'expire'>) {}

  slice(now: Date): boolean {
    return this.repository.expire(now.toISOString(), samlExpiryBatch) === samlExpiryBatch;
  }
}
