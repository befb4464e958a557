import type { TableGenerations } from '../storage/generation-cache.js';
import type { Db, Transaction } from '../storage/open-database.js';
import type { EventOutbox } from '../webhooks/event-outbox.js';
import { AlertRuleIndex } from './alert-rule-index.js';
import { AlertEvaluationService, type EvaluatedDatabases, type EvaluatedSamples, type MonitoringResumes } from './alert-evaluation-service.js';
import { AlertRulesRepository } from './alert-rules-repository.js';
import { AlertRulesService, type RuleDatabases } from './alert-rules-service.js';
import { AlertsRepository } from './alerts-repository.js';
import { alertsRoutes } from './alerts-routes.js';
import { AlertsService } from './alerts-service.js';

export interface AlertsDependencies {
  db: Db;
  /** The change counters: the rules evaluation indexes are reloaded when alert_rules changes. */
  generations: TableGenerations;
  databases: EvaluatedDatabases & RuleDatabases;
  resumes: MonitoringResumes;
  samples: EvaluatedSamples;
  events: EventOutbox;
  transaction: Transaction;
  /** When the server started: evaluation does not count silence from before it as unreachability. */
  startedAt?: Date | undefined;
}

/** Alert rules, alerts, and their evaluation (which also derives each database's status). */
export function createAlerts({ db, generations, databases, resumes, samples, events, transaction, startedAt }: AlertsDependencies) {
  const ruleRecords = new AlertRulesRepository(db);
  const records = new AlertsRepository(db);
  const alerting = new AlertEvaluationService({
    databases,
    samples,
    rules: new AlertRuleIndex(ruleRecords, generations),
    alerts: records,
    resumes,
    events,
    transaction,
    ...(startedAt && { startedAtMs: startedAt.getTime() }),
  });
  const alertRules = new AlertRulesService(ruleRecords, records, databases, alerting, transaction);
  const alerts = new AlertsService(records, alerting, events, transaction);
  return {
    alertRules,
    alerts,
    alerting,
    /** Active alerts of every organization by severity (the server's /metrics). */
    activeCounts: () => records.activeCountsBySeverity(),
    routes: (now: () => Date) => alertsRoutes(alertRules, alerts, now),
  };
}
