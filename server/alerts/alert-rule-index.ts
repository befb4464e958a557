import { GenerationCache, type TableGenerations } from '../storage/generation-cache.js';
import type { RuleSpec } from './alert-evaluator.js';
import { statusMetric } from './alert-metrics.js';
import type { AlertRuleRow } from './alert-rules-repository.js';

/** The enabled rules that watch one database, in creation order, split by what they watch. */
export interface ApplicableRules {
  /** Rules on a metric or on reachability: judged on the samples. */
  metricRules: readonly RuleSpec[];
  /** Rules on the status the metric rules' alerts settle: judged after them. */
  statusRules: readonly RuleSpec[];
  /** The longest hold among all of them: how far back evaluation reads samples. */
  longestHoldMs: number;
}

/** The enabled rules of one organization: the organization-wide ones and each database's own. */
class OrganizationRules {
  readonly #rows: readonly AlertRuleRow[];
  readonly #organizationWide: ApplicableRules;
  /** Per database with rules of its own, made on first use. */
  readonly #ofDatabase = new Map<string, ApplicableRules>();
  readonly #withOwnRules: ReadonlySet<string>;

  constructor(rows: readonly AlertRuleRow[]) {
    this.#rows = rows;
    this.#withOwnRules = new Set(rows.flatMap((row) => (row.database_id === null ? [] : [row.database_id])));
    this.#organizationWide = applicable(rows.filter((row) => row.database_id === null));
  }

  applicableTo(databaseId: string): ApplicableRules {
    if (!this.#withOwnRules.has(databaseId)) return this.#organizationWide;
    let rules = this.#ofDatabase.get(databaseId);
    if (rules === undefined) {
      rules = applicable(this.#rows.filter((row) => row.database_id === null || row.database_id === databaseId));
      this.#ofDatabase.set(databaseId, rules);
    }
    return rules;
  }
}

/** Where the enabled rules are stored: one organization's, oldest first (created_at, id). */
export interface EnabledRules {
  enabledOf(orgId: string): AlertRuleRow[];
}

/**
 * The enabled alert rules kept in memory, looked up by organization and database instead of a
 * query per evaluated database; reloaded when alert_rules changes (its change counter, migration 0022).
 */
export class AlertRuleIndex {
  readonly #byOrganization;

  constructor(
    private readonly rules: EnabledRules,
    generations: TableGenerations,
  ) {
    this.#byOrganization = new GenerationCache<OrganizationRules>(generations, 'alert_rules');
  }

  /** The enabled rules that watch this database: its own and the organization-wide ones, in creation order. */
  applicableTo(orgId: string, databaseId: string): ApplicableRules {
    return this.#byOrganization.get(orgId, () => new OrganizationRules(this.rules.enabledOf(orgId))).applicableTo(databaseId);
  }
}

function applicable(rows: readonly AlertRuleRow[]): ApplicableRules {
  const specs = rows.map(toSpec);
  return {
    metricRules: specs.filter((rule) => rule.metric !== statusMetric),
    statusRules: specs.filter((rule) => rule.metric === statusMetric),
    longestHoldMs: Math.max(0, ...specs.map((rule) => rule.duration_seconds * 1000)),
  };
}

function toSpec(row: AlertRuleRow): RuleSpec {
  return {
    id: row.id,
    name: row.name,
    metric: row.metric,
    operator: row.operator,
    threshold: row.threshold,
    duration_seconds: row.duration_seconds,
    severity: row.severity,
  };
}
