import { ConflictError, NotFoundError } from '../../errors.js';
import type { RequestClient } from '../../http/request-client.js';
import type { Mailer } from '../../mail/mailer.js';
import type { Transaction } from '../../storage/open-database.js';
import type { AuditLog } from '../audit/audit-log.js';
import { linkHolderOrigin } from '../audit/audit-origin.js';
import type { IdentityService } from '../identity/identity-service.js';
import type { Organization } from '../identity/organization.js';
import type { User, UserStatus } from '../identity/user.js';
import { invitationMessage } from '../one-time-links/link-messages.js';
import type { IssuedLink, OneTimeLinks } from '../one-time-links/one-time-links.js';
import type { Role } from '../permissions.js';
import { requireMayGrant, requireMayManage, type Administrator } from './ownership-rules.js';

export interface NewInvitation {
  email: string;
  name?: string | undefined;
  role: Role;
}

/** A link shown once to the administrator, and whether it was also mailed to the invitee. */
export interface SentLink extends IssuedLink {
  emailSent: boolean;
}

export interface Acceptance {
  name: string;
  password: string;
}

/** The identity feature's users, as an invitation is accepted. */
export interface InvitedUsers {
  findById(orgId: string, id: string): User | undefined;
  setName(id: string, name: string): void;
  setStatus(orgId: string, id: string, status: UserStatus): boolean;
}

/** The identity feature's organizations: an invitation names the one it is to. */
export interface InvitingOrganizations {
  findById(id: string): Organization | undefined;
}

/** New users: an invited account and a one-time link (7 days) with which the invitee sets a name and password. */
export class InvitationsService {
  constructor(
    private readonly identity: IdentityService,
    private readonly users: InvitedUsers,
    private readonly organizations: InvitingOrganizations,
    private readonly links: OneTimeLinks,
    private readonly audit: AuditLog,
    /** Absent without `email.smtp_url`: the link is only shown. */
    private readonly mailer: Mailer | undefined,
    private readonly transaction: Transaction,
  ) {}

  async invite(actor: Administrator, orgId: string, input: NewInvitation, now: Date): Promise<{ user: User; invitation: SentLink }> {
    requireMayGrant(actor, input.role);
    const { user, link } = this.transaction(() => {
      const user = this.identity.createUser({ orgId, email: input.email, name: input.name, role: input.role, status: 'invited' }, now);
      return { user, link: this.links.issue('invitation', user.id, now) };
    });
    return { user, invitation: { ...link, emailSent: await this.#mail(actor, user, link) } };
  }

  /** A new link for a user who has not accepted yet (the old one stops working). */
  async renew(actor: Administrator, orgId: string, userId: string, now: Date): Promise<SentLink> {
    const user = this.users.findById(orgId, userId);
    if (user === undefined) throw new NotFoundError(`No user ${userId}`, 'id');
    requireMayManage(actor, user);
    if (user.status !== 'invited') throw new ConflictError('not_invited', `User ${userId} is ${user.status}, not invited`, 'id');
    const link = this.links.issue('invitation', user.id, now);
    return { ...link, emailSent: await this.#mail(actor, user, link) };
  }

  /** The invitee a live link is for (the page shows the email), or undefined. */
  invitee(token: string, now: Date): User | undefined {
    return this.links.holder('invitation', token, now);
  }

  /** Sets the invitee's name and password and makes the account active; the link works once. `client` is who used it, when known. */
  accept(token: string, acceptance: Acceptance, now: Date, client: RequestClient | null = null): Promise<User> {
    return this.links.redeem('invitation', token, acceptance.password, now, (user) => {
      this.users.setName(user.id, acceptance.name);
      this.users.setStatus(user.org_id, user.id, 'active');
      this.audit.record({ origin: linkHolderOrigin(user, client), action: 'user.invitation_accepted', target: { type: 'user', id: user.id } }, now);
    });
  }

  async #mail(actor: Administrator, user: User, link: IssuedLink): Promise<boolean> {
    if (this.mailer === undefined) return false;
    const invitedBy = this.users.findById(user.org_id, actor.userId)!.name;
    const organization = this.organizations.findById(user.org_id)!.name;
    return this.mailer.send(invitationMessage({ email: user.email, role: user.role, organization, invitedBy }, link));
  }
}
