/** The organization's rule: whether members need a second factor, and from when. */
export interface TwoFactorPolicy {
  required: boolean;
  gracePeriodDays: number;
  /** When the requirement was last turned on. */
  requiredSince: string | null;
}

/**
 * Where a member stands with the rule: `satisfied` (not required, or they have a factor), `grace`
 * (required; they may still skip enrolling until `deadline`) or `required` (past the deadline: only
 * enrollment and signing out are open to them).
 */
export type TwoFactorStanding = { state: 'satisfied' } | { state: 'grace'; deadline: Date } | { state: 'required'; deadline: Date };

/**
 * Computed at every request from the stored rule, so shortening the grace period or turning the
 * requirement on applies at once. The grace period runs from when the requirement was turned on or
 * the member joined, whichever is later.
 */
export function twoFactorStanding(policy: TwoFactorPolicy, user: { created_at: string; two_factor_enabled: number }, now: Date): TwoFactorStanding {
  if (!policy.required || user.two_factor_enabled === 1) return { state: 'satisfied' };
  const start = Math.max(Date.parse(policy.requiredSince ?? now.toISOString()), Date.parse(user.created_at));
  const deadline = new Date(start + policy.gracePeriodDays * 86_400_000);
  return { state: deadline.getTime() > now.getTime() ? 'grace' : 'required', deadline };
}
