import type { Plan } from './plans.js';

/** An organization as stored. */
export interface Organization {
  id: string;
  name: string;
  slug: string;
  plan: Plan;
  custom_hourly_limit: number | null;
  created_at: string;
}

/** The organization's settings as stored: booleans as 0/1, the allowlist as a JSON array. */
export interface OrganizationSettingsRow {
  session_idle_timeout_minutes: number;
  session_max_duration_hours: number;
  max_concurrent_sessions: number;
  require_two_factor: number;
  two_factor_grace_period_days: number;
  /** When require_two_factor was last turned on; null while it is off. */
  two_factor_required_since: string | null;
  ip_allowlist: string;
  auto_apply_optimizations: number;
}
