/** The plans an organization may be on; each has its own hourly request limit (http/rate-limiter.ts). */
export const plans = ['free', 'pro', 'enterprise'] as const;
export type Plan = (typeof plans)[number];
