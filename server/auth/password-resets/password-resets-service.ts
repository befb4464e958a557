import { NotFoundError } from '../../errors.js';
import type { AuditOrigin } from '../audit/audit-origin.js';
import type { Mailer } from '../../mail/mailer.js';
import type { User } from '../identity/user.js';
import { passwordResetMessage } from '../one-time-links/link-messages.js';
import type { IssuedLink, OneTimeLinks } from '../one-time-links/one-time-links.js';
import type { SessionsService } from '../sessions/sessions-service.js';

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
    /** Absent without `email.smtp_url`: only the operator CLI gives out links then. */
    private readonly mailer: Mailer | undefined,
  ) {}

  /**
   * Someone asks for a reset of `email`. The answer (none) and its timing are the same whether or not
   * an active account has that email: the link is made and mailed only after the caller has answered.
   */
  request(email: string, now: Date): void {
    const user = this.users.findForSignIn(email);
    if (this.mailer === undefined || user?.status !== 'active') return;
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

  /** Sets the new password and ends every session of the user; the link works once. */
  reset(token: string, password: string, now: Date): Promise<User> {
    return this.links.redeem('password_reset', token, password, now, (user) => this.sessions.revokeOthers(resetBy(user), user.id, null, now));
  }
}

/** A reset is the user's own act, proven by the link: no credential, and no address at this layer. */
function resetBy(user: User): AuditOrigin {
  return { orgId: user.org_id, actor: { type: 'user', id: user.id }, credential: null, ip: null, userAgent: null };
}
