import type { User } from '../identity/user.js';
import type { OrganizationSettingsService } from '../organizations/organization-settings-service.js';
import { twoFactorStanding, type TwoFactorStanding } from './two-factor-standing.js';

/** The identity feature's users, found by organization and id. */
export interface StandingUsers {
  findById(orgId: string, id: string): User | undefined;
}

/** Each member's standing with their organization's two-factor rule, read fresh at every call. */
export class TwoFactorStandings {
  constructor(
    private readonly settings: OrganizationSettingsService,
    private readonly users: StandingUsers,
  ) {}

  of(orgId: string, userId: string, now: Date): TwoFactorStanding {
    const policy = this.settings.twoFactorPolicy(orgId);
    if (!policy.required) return { state: 'satisfied' };
    const user = this.users.findById(orgId, userId);
    return user === undefined ? { state: 'satisfied' } : twoFactorStanding(policy, user, now);
  }
}
