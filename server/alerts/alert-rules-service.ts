import { InvalidRequestError, NotFoundError } from '../errors.js';
import { newId } from '../crypto/new-id.js';
import type { AlertEvaluationService } from './alert-evaluation-service.js';
import type { AlertRuleRow, AlertRulesRepository } from './alert-rules-repository.js';
import type { AlertsRepository } from './alerts-repository.js';
import type { AlertRuleCreate, AlertRuleUpdate } from './alerts-schema.js';
import { stockAlertRules } from './stock-alert-rules.js';
import { presentMetricValue, statusMetric, statusValues, type StatusValue } from './alert-metrics.js';
import type { Operator } from './alert-evaluator.js';
import type { Transaction } from '../storage/open-database.js';


/** The databases a rule may name (the databases feature). */
export interface RuleDatabases {
  findById(orgId: string, id: string): object | undefined;
}

/** Rule CRUD. Every change re-evaluates the organization's databases in its transaction, so alerts of a removed rule resolve at once. */
export class AlertRulesService {
  constructor(
    private readonly rules: AlertRulesRepository,
    private readonly alerts: AlertsRepository,
    private readonly databases: RuleDatabases,
    private readonly evaluation: AlertEvaluationService,
    private readonly transaction: Transaction,
  ) {}

  list(orgId: string, databaseId: string | undefined, limit: number, offset: number) {
    return this.rules.list(orgId, databaseId, limit, offset);
  }

  get(orgId: string, id: string): AlertRuleRow {
    const row = this.rules.findById(orgId, id);
    if (row === undefined) throw new NotFoundError(`No alert rule ${id}`, 'id');
    return row;
  }

  create(orgId: string, input: AlertRuleCreate, now: Date): AlertRuleRow {
    this.checkDatabase(orgId, input.database_id);
    checkComparison(input.metric, input.operator, input.threshold);
    const row = this.newRow(orgId, input, now);
    return this.changeRules(orgId, now, () => {
      this.rules.insert(row);
      return row;
    });
  }

  /** Merges the given fields into the stored rule. */
  update(orgId: string, id: string, patch: AlertRuleUpdate, now: Date): AlertRuleRow {
    const current = this.get(orgId, id);
    if (patch.database_id !== undefined) this.checkDatabase(orgId, patch.database_id);
    const metric = patch.metric ?? current.metric;
    const threshold = patch.threshold ?? presentMetricValue(current.metric, current.threshold);
    checkComparison(metric, patch.operator ?? current.operator, threshold);
    const next: AlertRuleRow = {
      ...current,
      name: patch.name ?? current.name,
      database_id: patch.database_id === undefined ? current.database_id : patch.database_id,
      metric,
      operator: patch.operator ?? current.operator,
      threshold: storedThreshold(threshold),
      duration_seconds: patch.duration_seconds ?? current.duration_seconds,
      severity: patch.severity ?? current.severity,
      enabled: patch.enabled === undefined ? current.enabled : Number(patch.enabled),
      updated_at: now.toISOString(),
    };
    return this.changeRules(orgId, now, () => {
      this.rules.update(next);
      return next;
    });
  }

  /** Deletes the rule; its active alerts resolve (resolved_by auto) and stay in the history. */
  delete(orgId: string, id: string, now: Date): void {
    this.changeRules(orgId, now, () => {
      if (!this.rules.delete(orgId, id)) throw new NotFoundError(`No alert rule ${id}`, 'id');
      this.alerts.dropSuppressionsOfRule(id);
    });
  }

  /** The stock rules of a new organization. */
  createStockRules(orgId: string, now: Date): void {
    for (const rule of stockAlertRules) this.rules.insert(this.newRow(orgId, rule, now));
  }

  /** A change of the organization's rules, then their evaluation on its databases, in one transaction. */
  private changeRules<T>(orgId: string, now: Date, change: () => T): T {
    return this.transaction(() => {
      const result = change();
      this.evaluation.evaluateOrganization(orgId, now);
      return result;
    });
  }

  private newRow(orgId: string, input: AlertRuleCreate, now: Date): AlertRuleRow {
    const at = now.toISOString();
    return {
      id: newId('rule'),
      org_id: orgId,
      name: input.name,
      database_id: input.database_id,
      metric: input.metric,
      operator: input.operator,
      threshold: storedThreshold(input.threshold),
      duration_seconds: input.duration_seconds,
      severity: input.severity,
      enabled: Number(input.enabled),
      created_at: at,
      updated_at: at,
    };
  }

  private checkDatabase(orgId: string, databaseId: string | null): void {
    if (databaseId !== null && this.databases.findById(orgId, databaseId) === undefined) {
      throw new InvalidRequestError('invalid_parameter', `No database ${databaseId} in this organization`, 'database_id');
    }
  }
}

/** A status rule compares a status value with == or !=; every other rule a number. */
function checkComparison(metric: string, operator: Operator, threshold: number | StatusValue): void {
  if (metric === statusMetric) {
    if (operator !== '==' && operator !== '!=') {
      throw new InvalidRequestError('invalid_parameter', 'A status rule compares with == or != only', 'operator');
    }
    if (typeof threshold !== 'string') {
      throw new InvalidRequestError('invalid_parameter', `The threshold of a status rule is a status: ${statusValues.join(', ')}`, 'threshold');
    }
  } else if (typeof threshold === 'string') {
    throw new InvalidRequestError('invalid_parameter', `The threshold of a rule on ${metric} is a number`, 'threshold');
  }
}

function storedThreshold(threshold: number | StatusValue): number {
  return typeof threshold === 'string' ? statusValues.indexOf(threshold) : threshold;
}
