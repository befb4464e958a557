import { PermissionError } from '../../errors.js';
import type { GenerationCache } from '../../storage/generation-cache.js';
import type { OrganizationsRepository } from '../identity/organizations-repository.js';
import type { Principal } from '../principal.js';
import { IpAllowlist } from './ip-allowlist.js';

/**
 * The organizations' IP allowlists applied to every credential (keys, sessions, agents). Only an
 * enterprise organization's list restricts: a list kept after a downgrade is not enforced.
 */
export class NetworkAccess {
  constructor(
    private readonly organizations: OrganizationsRepository,
    /** Parsed lists by organization, dropped whenever an organization row changes (a save, from any connection). */
    private readonly allowlists: GenerationCache<IpAllowlist>,
  ) {}

  /** Why the principal may not act from `ip`, or undefined when it may. */
  refusal(principal: Principal, ip: string): PermissionError | undefined {
    if (principal.plan !== 'enterprise' || this.#allowlist(principal.orgId).allows(ip)) return undefined;
    return new PermissionError(`Your organization's IP allowlist does not include ${ip}`, 'ip_not_allowed');
  }

  #allowlist(orgId: string): IpAllowlist {
    return this.allowlists.get(orgId, () => new IpAllowlist(JSON.parse(this.organizations.settings(orgId)?.ip_allowlist ?? '[]') as string[]));
  }
}
