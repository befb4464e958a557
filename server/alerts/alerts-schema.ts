import { z } from 'zod';
import { pagingQuery, paginationSchema } from '../http/paging.js';
import { alertMetrics, statusValues } from './alert-metrics.js';
import { hysteresisRatio, operators } from './alert-evaluator.js';

export const severities = ['info', 'warning', 'critical'] as const;
export type Severity = (typeof severities)[number];

export const alertStatuses = ['active', 'resolved'] as const;
export type AlertStatus = (typeof alertStatuses)[number];

const name = z.string().trim().min(1).max(100);
const databaseId = z.string().nullable().describe('The database the rule watches; null: every database of the organization');
const metric = z
  .enum(alertMetrics)
  .describe(
    'A snapshot metric path (as in GET /v1/databases/{id}/metrics), `connections.used_pct` (connections.total / connections.max × 100) ' +
      'or `reachable` (1 while collections succeed; 0 when one failed or no sample arrived for more than two intervals), ' +
      'or `status`: the database status as derived from reachability and the alerts of metric rules. The alerts of status rules ' +
      'are left out of what status rules see (so a `status == warning` rule of severity critical does not feed on itself), ' +
      'but like any alert they set the database status. A paused database has no active alerts, so a status rule never fires on it.',
  );
const operator = z.enum(operators).describe('For `status`: == or != only');
const statusValue = z.enum(statusValues);
const threshold = z
  .union([z.number(), statusValue])
  .describe('Compared with the metric as `metric operator threshold`: a number, or for `status` a status value');
const durationSeconds = z
  .number()
  .int()
  .min(0)
  .max(86_400)
  .describe(
    'How long the condition must hold, measured on samples, before the alert fires; also how long it must stay clear before the alert resolves ' +
      '(an alert on reachable resolves on the first reachable sample). A silence of more than two collection intervals between samples ' +
      'breaks either: the hold counts again from the first sample after it.',
  );
const severity = z.enum(severities).describe('warning and critical alerts set the database status; info alerts do not');

export const alertRuleCreateBody = z
  .strictObject({
    name,
    database_id: databaseId.default(null),
    metric,
    operator,
    threshold,
    duration_seconds: durationSeconds.default(0),
    severity: severity.default('warning'),
    enabled: z.boolean().default(true),
  })
  .meta({ id: 'AlertRuleCreate' });

export const alertRuleUpdateBody = z
  .strictObject({
    name: name.optional(),
    database_id: databaseId.optional(),
    metric: metric.optional(),
    operator: operator.optional(),
    threshold: threshold.optional(),
    duration_seconds: durationSeconds.optional(),
    severity: severity.optional(),
    enabled: z.boolean().optional(),
  })
  .meta({ id: 'AlertRuleUpdate' });

export type AlertRuleCreate = z.output<typeof alertRuleCreateBody>;
export type AlertRuleUpdate = z.output<typeof alertRuleUpdateBody>;

export const alertRuleRecord = z
  .object({
    id: z.string(),
    name: z.string(),
    database_id: z.string().nullable(),
    metric: z.string(),
    operator,
    threshold: z.union([z.number(), statusValue]).describe('A status value for `status` rules, else a number'),
    duration_seconds: z.number().int(),
    severity: z.enum(severities),
    enabled: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'AlertRule' });

export const alertRuleList = z
  .object({ data: z.array(alertRuleRecord), pagination: paginationSchema() })
  .meta({ id: 'AlertRuleList' });

export const alertRuleListQuery = z.strictObject({
  ...pagingQuery,
  database_id: z.string().optional().describe('Only the rules bound to this database (rules for all databases are left out)'),
});

export const alertRecord = z
  .object({
    id: z.string(),
    rule_id: z.string(),
    database_id: z.string(),
    severity: z.enum(severities),
    status: z.enum(alertStatuses),
    metric: z.string(),
    operator,
    value: z.union([z.number(), statusValue]).nullable().describe('The value that fired the alert (a status value for `status` rules)'),
    threshold: z.union([z.number(), statusValue]),
    message: z
      .string()
      .describe(
        'What fired, for people. On the metric `reachable` it also says why: since when no sample arrived, and the ' +
          "database's `last_error` (code and redacted message) as it stood when the alert fired",
      ),
    triggered_at: z.string(),
    resolved_at: z.string().nullable(),
    resolved_by: z
      .string()
      .regex(/^(auto$|usr_|key_|sa_)/)
      .nullable()
      .describe(
        '`auto` when the condition cleared (or the rule went away, or monitoring was paused); otherwise who resolved it by hand: ' +
          'a user id (`usr_...`) for a personal key, the key id (`key_...`) for a service-account key. ' +
          'Alerts that a service-account key resolved on an earlier server version keep the service account id (`sa_...`) they were stored with.',
      ),
    resolution_note: z.string().nullable(),
  })
  .meta({ id: 'Alert' });

export const alertList = z.object({ data: z.array(alertRecord), pagination: paginationSchema() }).meta({ id: 'AlertList' });

export const alertListQuery = z.strictObject({
  ...pagingQuery,
  status: z.enum(['active', 'resolved', 'all']).default('active').describe('Default: active alerts only'),
  database_id: z.string().optional(),
  severity: z.enum(severities).optional(),
});
export type AlertListQuery = z.output<typeof alertListQuery>;

export const alertResolveBody = z
  .strictObject({ note: z.string().trim().max(1000).optional().describe('Kept on the alert as resolution_note') })
  .meta({ id: 'AlertResolve' });

export const idParams = z.object({ id: z.string() });

export const hysteresisDescription =
  `An alert resolves by itself once the value has been back past the threshold by ${hysteresisRatio * 100} % of |threshold| ` +
  '(exactly, for == and !=) on at least two consecutive samples spanning duration_seconds, with no silence of more than two ' +
  'collection intervals between them; an alert on `reachable` resolves on the first reachable sample.';
