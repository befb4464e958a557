import { actingUser } from '../auth/principal.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { pageWindow, sendList } from '../http/paging.js';
import { errorBody, errorResponses } from '../openapi/error-responses.js';
import { presentAlert, presentAlertRule } from './alert-presenter.js';
import type { AlertRulesService } from './alert-rules-service.js';
import type { AlertsService } from './alerts-service.js';
import {
  alertList,
  alertListQuery,
  alertRecord,
  alertResolveBody,
  alertRuleCreateBody,
  alertRuleList,
  alertRuleListQuery,
  alertRuleRecord,
  alertRuleUpdateBody,
  hysteresisDescription,
  idParams,
} from './alerts-schema.js';

const tag = 'Alerts';
const read = { scope: 'alerts', access: 'read' } as const;
const write = { scope: 'alerts', access: 'write' } as const;

const ruleDescription =
  'A rule watches one database (database_id) or all of the organization\'s (null) and fires when `metric operator threshold` ' +
  'has held on every sample for duration_seconds (0: on the first sample); at most one alert is active per rule and database. ' +
  `${hysteresisDescription} ` +
  'Every organization starts with three stock rules: connections.used_pct > 90 for 300 s (warning), disk_usage > 90 for 300 s (warning), ' +
  'reachable == 0 for 120 s (critical). Rules are evaluated on every stored batch of samples and every 15 s.';

/** Rules first: `/v1/alerts/rules` must be routed before `/v1/alerts/{id}`. */
export function alertsRoutes(rules: AlertRulesService, alerts: AlertsService, now: () => Date): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/alerts/rules',
      operationId: 'listAlertRules',
      summary: 'List alert rules, oldest first',
      tag,
      auth: read,
      query: alertRuleListQuery,
      responses: { 200: { description: 'A page of rules', schema: alertRuleList }, ...errorResponses },
      handler: (ctx, { query, principal }) => {
        const window = pageWindow(query);
        const { rows, total } = rules.list(principal.orgId, query.database_id, window.limit, window.offset);
        sendList(ctx, rows.map(presentAlertRule), total, query);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/alerts/rules',
      operationId: 'createAlertRule',
      summary: 'Create an alert rule',
      description: ruleDescription,
      tag,
      auth: write,
      body: alertRuleCreateBody,
      responses: { 201: { description: 'The new rule', schema: alertRuleRecord }, ...errorResponses },
      handler: (ctx, { body, principal }) => {
        const row = rules.create(principal.orgId, body, now());
        ctx.status = 201;
        ctx.set('Location', `/v1/alerts/rules/${row.id}`);
        ctx.body = presentAlertRule(row);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/alerts/rules/{id}',
      operationId: 'getAlertRule',
      summary: 'Read an alert rule',
      tag,
      auth: read,
      params: idParams,
      responses: { 200: { description: 'The rule', schema: alertRuleRecord }, ...errorResponses },
      handler: (ctx, { params, principal }) => {
        ctx.body = presentAlertRule(rules.get(principal.orgId, params.id));
      },
    }),
    defineRoute({
      method: 'put',
      path: '/v1/alerts/rules/{id}',
      operationId: 'updateAlertRule',
      summary: 'Update an alert rule; given fields are merged',
      description: 'Takes effect at once: alerts of a rule that is disabled or no longer covers a database resolve (resolved_by auto).',
      tag,
      auth: write,
      params: idParams,
      body: alertRuleUpdateBody,
      responses: { 200: { description: 'The updated rule', schema: alertRuleRecord }, ...errorResponses },
      handler: (ctx, { params, body, principal }) => {
        ctx.body = presentAlertRule(rules.update(principal.orgId, params.id, body, now()));
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/alerts/rules/{id}',
      operationId: 'deleteAlertRule',
      summary: 'Delete an alert rule; its active alerts resolve and stay in the history',
      tag,
      auth: write,
      params: idParams,
      responses: { 204: { description: 'Deleted' }, ...errorResponses },
      handler: (ctx, { params, principal }) => {
        rules.delete(principal.orgId, params.id, now());
        ctx.status = 204;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/alerts',
      operationId: 'listAlerts',
      summary: 'List alerts, newest first; active ones unless status says otherwise',
      tag,
      auth: read,
      query: alertListQuery,
      responses: { 200: { description: 'A page of alerts', schema: alertList }, ...errorResponses },
      handler: (ctx, { query, principal }) => {
        const window = pageWindow(query);
        const { rows, total } = alerts.list(principal.orgId, query, window.limit, window.offset);
        sendList(ctx, rows.map(presentAlert), total, query);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/alerts/{id}',
      operationId: 'getAlert',
      summary: 'Read an alert',
      tag,
      auth: read,
      params: idParams,
      responses: { 200: { description: 'The alert', schema: alertRecord }, ...errorResponses },
      handler: (ctx, { params, principal }) => {
        ctx.body = presentAlert(alerts.get(principal.orgId, params.id));
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/alerts/{id}/resolve',
      operationId: 'resolveAlert',
      summary: 'Resolve an alert by hand, with an optional note',
      description:
        'The body is optional. resolved_by becomes the caller: the user id (usr_...) for a personal key, the key id (key_...) for a service-account key. ' +
        'The rule does not fire again on this database until its condition has cleared once (a sample past the threshold by the hysteresis margin). ' +
        'An alert resolved already gives 409 already_resolved.',
      tag,
      auth: write,
      params: idParams,
      body: alertResolveBody,
      responses: {
        200: { description: 'The resolved alert', schema: alertRecord },
        ...errorResponses,
        409: { description: 'The alert is resolved already', schema: errorBody },
      },
      handler: (ctx, { params, body, principal }) => {
        const resolvedBy = actingUser(principal)?.userId ?? principal.credential.id;
        ctx.body = presentAlert(alerts.resolve(principal.orgId, params.id, resolvedBy, body.note, now()));
      },
    }),
  ];
}
