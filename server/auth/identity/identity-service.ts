import { ConflictError, NotFoundError } from '../../errors.js';
import { newId } from '../../crypto/new-id.js';
import type { Access, Role } from '../permissions.js';
import type { Organization } from './organization.js';
import type { OrganizationsRepository } from './organizations-repository.js';
import type { Plan } from './plans.js';
import type { ServiceAccount, ServiceAccountsRepository } from './service-accounts-repository.js';
import type { User, UserStatus } from './user.js';
import type { UsersRepository } from './users-repository.js';
import type { Transaction } from '../../storage/open-database.js';

export interface NewOrganization {
  name: string;
  plan: Plan;
  customHourlyLimit?: number | null;
}

export interface NewUser {
  orgId: string;
  email: string;
  name?: string | undefined;
  role: Role;
  passwordHash?: string;
  /** `active` unless said: an invited user has no password yet. */
  status?: UserStatus;
}

export class IdentityService {
  constructor(
    private readonly organizations: OrganizationsRepository,
    private readonly users: UsersRepository,
    private readonly serviceAccounts: ServiceAccountsRepository,
    /** What every new organization starts with (its stock alert rules); runs in the creating transaction. */
    private readonly organizationCreated: (organization: Organization, now: Date) => void = () => undefined,
    private readonly transaction: Transaction = (work) => work(),
  ) {}

  createOrganization(input: NewOrganization, now: Date): Organization {
    const organization: Organization = {
      id: newId('org'),
      name: input.name,
      slug: slugify(input.name),
      plan: input.plan,
      custom_hourly_limit: input.customHourlyLimit ?? null,
      created_at: now.toISOString(),
    };
    try {
      this.transaction(() => {
        this.organizations.insert(organization);
        this.organizationCreated(organization, now);
      });
    } catch (error) {
      throw uniqueViolation(error) ? new ConflictError('already_exists', `An organization named ${input.name} exists`, 'name') : error;
    }
    return organization;
  }

  requireOrganization(id: string): Organization {
    const organization = this.organizations.findById(id);
    if (organization === undefined) throw new NotFoundError(`No organization ${id}`, 'org');
    return organization;
  }

  hasOrganizations(): boolean {
    return this.organizations.count() > 0;
  }

  listOrganizations(): Organization[] {
    return this.organizations.all();
  }

  /** The users of one organization, or of all of them (null). */
  listUsers(orgId: string | null): User[] {
    if (orgId !== null) this.requireOrganization(orgId);
    return this.users.list(orgId);
  }

  createUser(input: NewUser, now: Date): User {
    this.requireOrganization(input.orgId);
    const user: User = {
      id: newId('usr'),
      org_id: input.orgId,
      email: input.email,
      name: input.name ?? input.email.split('@')[0]!,
      role: input.role,
      password_hash: input.passwordHash ?? null,
      created_at: now.toISOString(),
      status: input.status ?? 'active',
      last_sign_in_at: null,
      two_factor_enabled: 0,
    };
    try {
      this.users.insert(user);
    } catch (error) {
      throw uniqueViolation(error) ? new ConflictError('already_exists', `A user with email ${input.email} exists`, 'email') : error;
    }
    return user;
  }

  requireUser(orgId: string, email: string): User {
    const user = this.users.findByEmail(orgId, email);
    if (user === undefined) throw new NotFoundError(`No user ${email} in organization ${orgId}`, 'email');
    return user;
  }

  setUserRole(orgId: string, userId: string, role: Role): void {
    if (!this.users.setRole(orgId, userId, role)) throw new NotFoundError(`No user ${userId}`, 'user');
  }

  findServiceAccount(orgId: string, name: string): ServiceAccount | undefined {
    return this.serviceAccounts.findByName(orgId, name);
  }

  /** The named service account, created with `permission` when it does not exist yet. */
  serviceAccount(orgId: string, name: string, permission: Access, now: Date): ServiceAccount {
    const existing = this.serviceAccounts.findByName(orgId, name);
    if (existing !== undefined) return existing;
    const account: ServiceAccount = { id: newId('sa'), org_id: orgId, name, permission, created_at: now.toISOString() };
    this.serviceAccounts.insert(account);
    return account;
  }
}

export function slugify(name: string): string {
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  return slug || 'org';
}

function uniqueViolation(error: unknown): boolean {
  return (error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE';
}
