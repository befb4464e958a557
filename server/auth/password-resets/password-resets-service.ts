import { NotFoundError } from '../../errors.js';
import type { RequestClient } from '../../http/request-client.js';
import type { Mailer } from '../../mail/mailer.js';
import type { AuditLog } from '../audit/audit-log.js';
import { linkHolderOrigin } from '../audit/audit-origin.js';
import type { User } from '../identity/user.js';
import { passwordResetMessage } from '../one-time-links/link-messages.js';
import type { IssuedLink, OneTimeLinks } from '../one-time-links/one-time-links.js';
import type { SessionsService } from '../sessions/sessions-service.js';
import { ThrottledError } from '../throttling/throttled-error.js';
import type { ResetRequestLimit } from './reset-request-limit.js';

/** The identity feature's users, found by the email a reset is asked for. */
export interface ResetUsers {
  findForSignIn(email: string): User | undefined;
}

/** Forgotten passwords: a one-time link (1 hour) to the account's email, or printed by the operator CLI. */
export class PasswordResetsService {
  constructor(
    private readonly users: ResetUsers,
    private readonly links: OneTimeLinks,
    private readonly sessions: SessionsService,
    private readonly limit: ResetRequestLimit,
    private readonly audit: AuditLog,
    /** Absent without `email.smtp_url`: only the operator CLI gives out links then. */
    private readonly mailer: Mailer | undefined,
  ) {}

  /**
   * Someone at `ip` asks for a reset of `email`. The answer (none) and its timing are the same whether or
   * not an active account has that email: the link is made and mailed only after the caller has answered,
   * and an account's mail limit is kept silently. Throws ThrottledError when the address asked too often.
   */
  request(email: string, ip: string, now: Date): void {
    const decision = this.limit.request(ip, now.getTime());
    if (!decision.allowed) throw new ThrottledError(decision, now.getTime());
    const user = this.users.findForSignIn(email);
    if (this.mailer === undefined || user?.status !== 'active' || !this.limit.mail(user.id, now.getTime())) return;
    this.mailer.sendLater(() => passwordResetMessage(user.email, this.links.issue('password_reset', user.id, now)));
  }

  /** A link for the active user with this email, to be handed over another way (`dbmon users reset-password`). */
  issue(email: string, now: Date): IssuedLink {
    const user = this.users.findForSignIn(email);
    if (user?.status !== 'active') throw new NotFoundError(`No active user with the email ${email}`, 'email');
    return this.links.issue('password_reset', user.id, now);
  }

  /** The account a live link resets (the page shows the email), or undefined. */
  account(token: string, now: Date): User | undefined {
    return this.links.holder('password_reset', token, now);
  }

  /** Sets the new password and ends every session of the user; the link works once. `client` is who used it, when known. */
  reset(token: string, password: string, now: Date, client: RequestClient | null = null): Promise<User> {
    return this.links.redeem('password_reset', token, password, now, (user) => {
      const origin = linkHolderOrigin(user, client);
      this.audit.record({ origin, action: 'user.password_reset', target: { type: 'user', id: user.id } }, now);
      this.sessions.revokeOthers(origin, user.id, null, now);
    });
  }
}
