import { PermissionError } from '../../errors.js';
import type { RequestClient } from '../../http/request-client.js';
import type { GenerationCache } from '../../storage/generation-cache.js';
import type { AuditLog } from '../audit/audit-log.js';
import { originOf } from '../audit/audit-origin.js';
import type { OrganizationSettingsRow } from '../identity/organization.js';
import { actorId, type Principal } from '../principal.js';
import { IpAllowlist } from './ip-allowlist.js';
import type { RefusalSampler } from './refusal-sampler.js';

/** The identity feature's organizations, whose settings hold the allowlist. */
export interface AllowlistSettings {
  settings(orgId: string): OrganizationSettingsRow | undefined;
}

/**
 * The organizations' IP allowlists applied to every credential (keys, sessions, agents). Only an
 * enterprise organization's list restricts: a list kept after a downgrade is not enforced.
 */
export class NetworkAccess {
  constructor(
    private readonly organizations: AllowlistSettings,
    /** Parsed lists by organization, dropped whenever an organization row changes (a save, from any connection). */
    private readonly allowlists: GenerationCache<IpAllowlist>,
    private readonly audit: AuditLog,
    /** Keeps a flood of refused requests from filling the audit log. */
    private readonly sampler: RefusalSampler,
  ) {}

  /** Why the principal may not act from the client's address, or undefined when it may; a refusal is audited, sampled. */
  refusal(principal: Principal, client: RequestClient, now: Date): PermissionError | undefined {
    if (principal.plan !== 'enterprise' || this.#allowlist(principal.orgId).allows(client.ip)) return undefined;
    const unrecorded = this.sampler.take(actorId(principal.actor), now.getTime());
    if (unrecorded !== undefined) this.audit.record({ origin: originOf(principal, client), action: 'ip_allowlist.refused', details: { unrecorded } }, now);
    return new PermissionError(`Your organization's IP allowlist does not include ${client.ip}`, 'ip_not_allowed');
  }

  #allowlist(orgId: string): IpAllowlist {
    return this.allowlists.get(orgId, () => new IpAllowlist(JSON.parse(this.organizations.settings(orgId)?.ip_allowlist ?? '[]') as string[]));
  }
}
