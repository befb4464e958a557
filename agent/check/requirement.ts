/** ok: in place; missing: collection is wrong or incomplete without it; warning: optional, a feature is off. */
export type RequirementStatus = 'ok' | 'missing' | 'warning';

/** One thing the agent's user or the engine must have, as found on one database. */
export interface Requirement {
  name: string;
  status: RequirementStatus;
  /** What was found, and what it is needed for. */
  detail: string;
  /** The exact statement or configuration line that puts it in place. */
  fix?: string;
}

export const ok = (name: string, detail: string): Requirement => ({ name, status: 'ok', detail });
export const missing = (name: string, detail: string, fix: string): Requirement => ({ name, status: 'missing', detail, fix });
export const warning = (name: string, detail: string, fix: string): Requirement => ({ name, status: 'warning', detail, fix });
