import { isSecretToken, newSecretToken } from '../../crypto/secret-token.js';
import { NotFoundError } from '../../errors.js';
import type { Transaction } from '../../storage/open-database.js';
import { hashToken } from '../api-keys/api-key-token.js';
import type { User, UserStatus } from '../identity/user.js';
import { hashPassword } from '../passwords/password-hash.js';
import { checkNewPassword } from '../passwords/password-policy.js';
import type { LinkPurpose } from './link-purpose.js';
import type { OneTimeLinksRepository } from './one-time-links-repository.js';

/** How long a link lives: an invitation a week, a password reset an hour. */
export const linkLifetimesMs: Record<LinkPurpose, number> = { invitation: 7 * 86_400_000, password_reset: 3_600_000 };

/** Where the page that takes a link lives, under `server.public_url`. */
const linkPaths: Record<LinkPurpose, string> = { invitation: '/invitations/', password_reset: '/password-reset/' };

/** Whom a link is for: an invitation for a user still invited, a reset for an active one. */
const holderStatus: Record<LinkPurpose, UserStatus> = { invitation: 'invited', password_reset: 'active' };

/** The identity feature's users: a link names one without its organization, and may set their password. */
export interface LinkHolders {
  findByIdInAnyOrganization(id: string): User | undefined;
  setPasswordHash(id: string, hash: string): void;
}

/** A link just made: the URL (its token shown this once) and when it stops working. */
export interface IssuedLink {
  url: string;
  expiresAt: string;
}

/** One answer for every link that does not work, whatever the reason. */
function linkNotValid(): NotFoundError {
  return new NotFoundError('This link does not work: it was used, replaced or cancelled, or it has expired', 'token');
}

/**
 * One-time links bound to a user and a purpose, with 256-bit tokens of which only the SHA-256 is
 * stored (a token that long needs no slow hash); a malformed token never reaches storage.
 */
export class OneTimeLinks {
  constructor(
    private readonly links: OneTimeLinksRepository,
    private readonly users: LinkHolders,
    /** `server.public_url`: the origin of every link. */
    private readonly publicUrl: string,
    private readonly transaction: Transaction,
  ) {}

  /** A new link for the user, replacing their earlier one of the same purpose. */
  issue(purpose: LinkPurpose, userId: string, now: Date): IssuedLink {
    const token = newSecretToken();
    const expiresAt = new Date(now.getTime() + linkLifetimesMs[purpose]).toISOString();
    this.transaction(() => this.links.replace({ token_hash: hashToken(token), purpose, user_id: userId, created_at: now.toISOString(), expires_at: expiresAt }));
    return { url: `${this.publicUrl}${linkPaths[purpose]}${token}`, expiresAt };
  }

  /** The user a live link is for (the page shows whom), or undefined; the link stays usable. */
  holder(purpose: LinkPurpose, token: string, now: Date): User | undefined {
    const userId = isSecretToken(token) ? this.links.liveUser(hashToken(token), purpose, now.toISOString()) : undefined;
    const user = userId === undefined ? undefined : this.users.findByIdInAnyOrganization(userId);
    return user?.status === holderStatus[purpose] ? user : undefined;
  }

  /**
   * Sets the holder's new password through the link and uses the link up; `apply` does the rest in
   * the same transaction. A password the policy refuses leaves the link usable; of two uses at once
   * only one succeeds.
   */
  async redeem(purpose: LinkPurpose, token: string, password: string, now: Date, apply: (user: User) => void): Promise<User> {
    const user = this.holder(purpose, token, now);
    if (user === undefined) throw linkNotValid();
    checkNewPassword(password, user.email);
    const passwordHash = await hashPassword(password);
    return this.transaction(() => {
      // Disabling or removing the user deletes their links, so a link still there is for the user as found above.
      if (this.links.consume(hashToken(token), purpose, now.toISOString()) !== user.id) throw linkNotValid();
      this.users.setPasswordHash(user.id, passwordHash);
      apply(user);
      return this.users.findByIdInAnyOrganization(user.id)!;
    });
  }

  /** Cancels every pending link of the user. */
  cancel(userId: string): void {
    this.links.deleteOfUser(userId);
  }
}
