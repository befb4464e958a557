import { ConflictError, NotFoundError, PermissionError } from '../../errors.js';
import type { GenerationCache } from '../../storage/generation-cache.js';
import type { Transaction } from '../../storage/open-database.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { AuditOrigin } from '../audit/audit-origin.js';
import type { Organization, OrganizationSettingsRow } from '../identity/organization.js';
import { slugify } from '../identity/identity-service.js';
import type { SessionLimits } from '../sessions/sessions-service.js';
import type { TwoFactorPolicy } from '../two-factor/two-factor-standing.js';
import { IpAllowlist } from './ip-allowlist.js';
import type { OrganizationSettings, OrganizationSettingsChange } from './organization-schema.js';

/** The identity feature's organizations, as their owners and admins change them. */
export interface SettingsOrganizations {
  findById(id: string): Organization | undefined;
  /** Throws SQLITE_CONSTRAINT_UNIQUE when another organization has the name or the slug. */
  rename(id: string, name: string, slug: string): void;
  settings(id: string): OrganizationSettingsRow | undefined;
  updateSettings(id: string, settings: OrganizationSettingsRow): void;
}

/** The organization's name and slug, and the settings its owners and admins control; every change audited with its values before and after. */
export class OrganizationSettingsService {
  constructor(
    private readonly organizations: SettingsOrganizations,
    private readonly audit: AuditLog,
    private readonly transaction: Transaction,
    /** Settings rows by organization, dropped whenever an organization row changes: a session's or personal token's every request reads them. */
    private readonly rows: GenerationCache<OrganizationSettingsRow | undefined>,
  ) {}

  organization(orgId: string): Organization {
    const organization = this.organizations.findById(orgId);
    if (organization === undefined) throw new NotFoundError(`No organization ${orgId}`);
    return organization;
  }

  rename(origin: AuditOrigin, change: { name?: string | undefined; slug?: string | undefined }, now: Date): Organization {
    const { orgId } = origin;
    const current = this.organization(orgId);
    const name = change.name ?? current.name;
    const slug = change.slug ?? (change.name !== undefined ? slugify(name) : current.slug);
    try {
      this.transaction(() => {
        this.organizations.rename(orgId, name, slug);
        const changes = changesOf({ name: current.name, slug: current.slug }, { name, slug });
        if (changes !== undefined) this.audit.record({ origin, action: 'organization.updated', target: { type: 'organization', id: orgId }, details: { changes } }, now);
      });
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_CONSTRAINT_UNIQUE') throw error;
      throw new ConflictError('already_exists', 'Another organization has this name or slug', change.slug !== undefined ? 'slug' : 'name');
    }
    return this.organization(orgId);
  }

  settings(orgId: string): OrganizationSettings {
    return fromRow(this.#row(orgId));
  }

  /**
   * An allowlist is an enterprise feature (403 plan_required) and may not shut out the address
   * saving it (409 would_lock_out); the operator (no address) cannot be shut out.
   */
  update(origin: AuditOrigin, change: OrganizationSettingsChange, now: Date): OrganizationSettings {
    const { orgId, ip } = origin;
    const current = this.settings(orgId);
    const next = { ...current, ...change };
    if (change.ip_allowlist !== undefined && change.ip_allowlist.length > 0) {
      if (this.organization(orgId).plan !== 'enterprise') throw new PermissionError('An IP allowlist needs the enterprise plan', 'plan_required');
      if (ip !== null && !new IpAllowlist(change.ip_allowlist).allows(ip)) {
        throw new ConflictError('would_lock_out', `The allowlist does not include your own address ${ip}; saving it would lock you out`, 'ip_allowlist');
      }
    }
    this.transaction(() => {
      this.organizations.updateSettings(orgId, toRow(next, requiredSince(this.#row(orgId), next, now)));
      const changes = changesOf(current, next);
      if (changes !== undefined) {
        this.audit.record({ origin, action: 'organization.settings_updated', target: { type: 'organization', id: orgId }, details: { changes } }, now);
      }
    });
    return next;
  }

  /** The organization's two-factor requirement as stored, with when it was turned on. */
  twoFactorPolicy(orgId: string): TwoFactorPolicy {
    const { require_two_factor, two_factor_grace_period_days, two_factor_required_since } = this.#row(orgId);
    return { required: require_two_factor === 1, gracePeriodDays: two_factor_grace_period_days, requiredSince: two_factor_required_since };
  }

  sessionLimits(orgId: string): SessionLimits {
    const { session_idle_timeout_minutes, session_max_duration_hours, max_concurrent_sessions } = this.#row(orgId);
    return { session_idle_timeout_minutes, session_max_duration_hours, max_concurrent_sessions };
  }

  #row(orgId: string): OrganizationSettingsRow {
    const row = this.rows.get(orgId, () => this.organizations.settings(orgId));
    if (row === undefined) throw new NotFoundError(`No organization ${orgId}`);
    return row;
  }
}

function fromRow(row: OrganizationSettingsRow): OrganizationSettings {
  return {
    session_idle_timeout_minutes: row.session_idle_timeout_minutes,
    session_max_duration_hours: row.session_max_duration_hours,
    max_concurrent_sessions: row.max_concurrent_sessions,
    require_two_factor: row.require_two_factor === 1,
    two_factor_grace_period_days: row.two_factor_grace_period_days,
    ip_allowlist: JSON.parse(row.ip_allowlist) as string[],
    allow_auto_apply: row.auto_apply_optimizations === 1,
  };
}

/** Turning the requirement on starts every member's grace period now; keeping it on keeps the start. */
function requiredSince(current: OrganizationSettingsRow, next: OrganizationSettings, now: Date): string | null {
  if (!next.require_two_factor) return null;
  return current.two_factor_required_since ?? now.toISOString();
}

function toRow(settings: OrganizationSettings, twoFactorRequiredSince: string | null): OrganizationSettingsRow {
  return {
    session_idle_timeout_minutes: settings.session_idle_timeout_minutes,
    session_max_duration_hours: settings.session_max_duration_hours,
    max_concurrent_sessions: settings.max_concurrent_sessions,
    require_two_factor: Number(settings.require_two_factor),
    two_factor_grace_period_days: settings.two_factor_grace_period_days,
    two_factor_required_since: twoFactorRequiredSince,
    ip_allowlist: JSON.stringify(settings.ip_allowlist),
    auto_apply_optimizations: Number(settings.allow_auto_apply),
  };
}

/** Each field whose value differs, with its value before and after; undefined when none does. */
function changesOf<T extends object>(before: T, after: T): Record<string, { from: unknown; to: unknown }> | undefined {
  const changed = (Object.keys(after) as (keyof T & string)[]).filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]));
  return changed.length === 0 ? undefined : Object.fromEntries(changed.map((key) => [key, { from: before[key], to: after[key] }]));
}
