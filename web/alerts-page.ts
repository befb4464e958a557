import { callApi, getAll, getJson } from './api.js';
import type { Database } from './api-types.js';
import { durationText, unitLabel, valueWithUnit, type AlertRecord, type RuleInput, type RuleRecord, type RuleUnit } from './alert-records.js';
import { element, timeElement } from './format.js';
import { startRefreshLoop } from './refresh-loop.js';
import { rowButton, showProblem } from './row-controls.js';

/** The alerts screen at `/alerts`: alerts with filters, resolving with a note, and the rules editor, all through /v1. */

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const root = byId<HTMLElement>('alerts-page');
const canEdit = root.dataset.canEdit === 'true';
const units = JSON.parse(root.dataset.metricUnits ?? '{}') as Record<string, RuleUnit>;
const problem = byId<HTMLElement>('refresh-problem');
const stateFilter = byId<HTMLSelectElement>('alert-state');
const severityFilter = byId<HTMLSelectElement>('alert-severity');
const databaseFilter = byId<HTMLSelectElement>('alert-database');
const spanFilter = byId<HTMLSelectElement>('alert-span');
const alertStatus = byId<HTMLElement>('alert-status');
const alertRows = byId<HTMLTableSectionElement>('alert-rows');
const ruleRows = byId<HTMLTableSectionElement>('rule-rows');
const spanMs: Record<string, number> = { '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 };
/** More than this many alerts in the span: the newest are shown, and the page says so. */
const alertLimit = 500;

let databaseNames = new Map<string, string>();
/** The rule a link asked to open in the editor (`?edit_rule=`), until the rules are first read. */
let ruleToEdit = canEdit ? new URLSearchParams(location.search).get('edit_rule') : null;

async function refresh(): Promise<number> {
  const databases = await getAll<Database>('/v1/databases');
  databaseNames = new Map(databases.map((database) => [database.id, database.name]));
  fillDatabaseChoices(databaseFilter, 'All');
  if (canEdit) fillDatabaseChoices(byId<HTMLSelectElement>('rule-database'), 'Every database');
  const [alerts, rules] = await Promise.all([alertsInSpan(), getAll<RuleRecord>('/v1/alerts/rules')]);
  drawAlerts(alerts.items, alerts.more);
  drawRules(rules);
  const linked = rules.find((rule) => rule.id === ruleToEdit);
  ruleToEdit = null;
  if (linked !== undefined) editRule(linked);
  return 60_000;
}

/** Keeps the chosen option; adds the databases registered since. */
function fillDatabaseChoices(select: HTMLSelectElement, allLabel: string): void {
  const chosen = select.value;
  const options = [new Option(allLabel, ''), ...[...databaseNames].map(([id, name]) => new Option(name, id))];
  select.replaceChildren(...options);
  select.value = [...databaseNames.keys()].includes(chosen) ? chosen : '';
}

/** Newest first, page by page, until the alerts are older than the span. */
async function alertsInSpan(): Promise<{ items: AlertRecord[]; more: boolean }> {
  const query = new URLSearchParams({ status: stateFilter.value, per_page: '100' });
  if (severityFilter.value !== '') query.set('severity', severityFilter.value);
  if (databaseFilter.value !== '') query.set('database_id', databaseFilter.value);
  const since = spanFilter.value === '' ? -Infinity : Date.now() - spanMs[spanFilter.value]!;
  const items: AlertRecord[] = [];
  for (let page = 1; ; page++) {
    query.set('page', String(page));
    const answer = await getJson<{ data: AlertRecord[]; pagination: { total: number } }>(`/v1/alerts?${query}`);
    const inSpan = answer.data.filter((alert) => Date.parse(alert.triggered_at) >= since);
    items.push(...inSpan);
    if (items.length >= alertLimit) return { items: items.slice(0, alertLimit), more: true };
    if (inSpan.length < answer.data.length || page * 100 >= answer.pagination.total) return { items, more: false };
  }
}

function drawAlerts(alerts: AlertRecord[], more: boolean): void {
  alertRows.replaceChildren(...alerts.map(alertRow));
  const updated = ['Updated ', timeElement(new Date()), '; refreshes by itself.'];
  if (alerts.length === 0) alertStatus.replaceChildren('No alert matches these filters. ', ...updated);
  else alertStatus.replaceChildren(`${alerts.length}${more ? ' newest' : ''} alert${alerts.length === 1 ? '' : 's'}. `, ...updated);
}

function alertRow(alert: AlertRecord): HTMLTableRowElement {
  const tr = element('tr', `severity-${alert.severity}`);
  tr.dataset.alertId = alert.id;
  const severity = element('td');
  severity.append(element('span', `severity severity-${alert.severity}`, alert.severity));
  const database = element('td');
  const link = element('a', undefined, databaseNames.get(alert.database_id) ?? alert.database_id);
  link.href = `/databases/${encodeURIComponent(alert.database_id)}`;
  database.append(link);
  const what = element('td', undefined, alert.message);
  const unit = units[alert.metric];
  what.append(
    element('span', 'row-note', `${alert.metric} ${alert.operator} ${valueWithUnit(alert.threshold, unit)}; value ${alert.value === null ? 'not measured' : valueWithUnit(alert.value, unit)}`),
  );
  const fired = element('td');
  fired.append(timeElement(new Date(alert.triggered_at)));
  const state = element('td', undefined, alert.status);
  if (alert.resolved_at !== null) {
    state.append(' ', timeElement(new Date(alert.resolved_at)));
    state.append(element('span', 'row-note', alert.resolved_by === 'auto' ? 'condition cleared' : `by ${alert.resolved_by ?? 'unknown'}`));
    if (alert.resolution_note !== null) state.append(element('span', 'row-note resolution-note', `Note: ${alert.resolution_note}`));
  }
  tr.append(severity, database, what, fired, state);
  if (canEdit) {
    const action = element('td');
    if (alert.status === 'active') {
      const resolve = element('button', 'secondary', 'Resolve…');
      resolve.type = 'button';
      resolve.setAttribute('aria-label', `Resolve: ${alert.message}`);
      resolve.addEventListener('click', () => openResolve(alert));
      action.append(resolve);
    }
    tr.append(action);
  }
  return tr;
}

function drawRules(rules: RuleRecord[]): void {
  if (rules.length === 0) {
    const empty = element('td', 'muted', 'No rule yet.');
    empty.colSpan = canEdit ? 7 : 6;
    const tr = element('tr');
    tr.append(empty);
    ruleRows.replaceChildren(tr);
    return;
  }
  ruleRows.replaceChildren(...rules.map(ruleRow));
}

function ruleRow(rule: RuleRecord): HTMLTableRowElement {
  const tr = element('tr');
  tr.dataset.ruleId = rule.id;
  const name = element('th', undefined, rule.name);
  name.scope = 'row';
  const database = element('td', rule.database_id === null ? 'muted' : undefined, rule.database_id === null ? 'every database' : (databaseNames.get(rule.database_id) ?? rule.database_id));
  const condition = element('td', undefined, `${rule.metric} ${rule.operator} ${valueWithUnit(rule.threshold, units[rule.metric])}`);
  tr.append(name, database, condition, element('td', undefined, durationText(rule.duration_seconds)), element('td', undefined, rule.severity), element('td', undefined, rule.enabled ? 'yes' : 'no'));
  if (canEdit) {
    const actions = element('td', 'row-actions');
    actions.append(
      rowButton('Edit', `Edit ${rule.name}`, () => editRule(rule)),
      rowButton(rule.enabled ? 'Disable' : 'Enable', `${rule.enabled ? 'Disable' : 'Enable'} ${rule.name}`, () => changeRule(() => callApi('PUT', `/v1/alerts/rules/${rule.id}`, { enabled: !rule.enabled }))),
      rowButton('Delete', `Delete ${rule.name}`, () => {
        if (window.confirm(`Delete the rule "${rule.name}"? Its active alerts resolve.`)) void changeRule(() => callApi('DELETE', `/v1/alerts/rules/${rule.id}`));
      }),
    );
    tr.append(actions);
  }
  return tr;
}

async function changeRule(change: () => Promise<unknown>): Promise<void> {
  try {
    await change();
    byId('rules-problem').hidden = true;
  } catch (error) {
    showProblem(byId('rules-problem'), error);
  }
  loop.now();
}

// Resolving: one dialog for every active alert, asking for an optional note.
let resolving: AlertRecord | undefined;

function openResolve(alert: AlertRecord): void {
  resolving = alert;
  byId('resolve-what').textContent = alert.message;
  byId<HTMLTextAreaElement>('resolve-note').value = '';
  byId('resolve-problem').hidden = true;
  byId<HTMLDialogElement>('resolve-dialog').showModal();
}

function wireResolve(): void {
  const dialog = byId<HTMLDialogElement>('resolve-dialog');
  byId('resolve-cancel').addEventListener('click', () => dialog.close());
  byId<HTMLFormElement>('resolve-form').addEventListener('submit', (event) => {
    event.preventDefault();
    if (resolving === undefined) return;
    const note = byId<HTMLTextAreaElement>('resolve-note').value.trim();
    callApi('PATCH', `/v1/alerts/${encodeURIComponent(resolving.id)}/resolve`, note === '' ? {} : { note })
      .then(() => {
        dialog.close();
        loop.now();
      })
      .catch((error: unknown) => showProblem(byId('resolve-problem'), error));
  });
}

// The rules editor: creates a rule, or saves the one picked with Edit.
let editing: RuleRecord | undefined;

function wireRuleForm(): void {
  const form = byId<HTMLFormElement>('rule-form');
  const metric = byId<HTMLSelectElement>('rule-metric');
  const operator = byId<HTMLSelectElement>('rule-operator');
  metric.addEventListener('change', showMetricUnit);
  showMetricUnit();
  byId('rule-cancel').addEventListener('click', () => resetRuleForm());
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const isStatus = units[metric.value] === 'status';
    const input: RuleInput = {
      name: byId<HTMLInputElement>('rule-name').value,
      database_id: byId<HTMLSelectElement>('rule-database').value || null,
      metric: metric.value,
      operator: operator.value as RuleInput['operator'],
      threshold: isStatus ? byId<HTMLSelectElement>('rule-status').value : Number(byId<HTMLInputElement>('rule-threshold').value),
      duration_seconds: Number(byId<HTMLInputElement>('rule-duration').value),
      severity: byId<HTMLSelectElement>('rule-severity').value as RuleInput['severity'],
      enabled: byId<HTMLInputElement>('rule-enabled').checked,
    };
    const saving = editing === undefined ? callApi('POST', '/v1/alerts/rules', input) : callApi('PUT', `/v1/alerts/rules/${encodeURIComponent(editing.id)}`, input);
    saving
      .then(() => {
        resetRuleForm();
        loop.now();
      })
      .catch((error: unknown) => showProblem(byId('rule-problem'), error));
  });
}

/** The threshold's unit follows the metric; a status rule compares with a status value, by == or != only. */
function showMetricUnit(): void {
  const metric = byId<HTMLSelectElement>('rule-metric');
  const unit = units[metric.value];
  const isStatus = unit === 'status';
  byId('rule-threshold-field').hidden = isStatus;
  byId<HTMLInputElement>('rule-threshold').required = !isStatus;
  byId('rule-status-field').hidden = !isStatus;
  byId('rule-threshold-unit').textContent = unit === undefined ? '' : unitLabel[unit];
  byId('rule-metric-help').textContent = metric.selectedOptions[0]?.dataset.help ?? '';
  const operator = byId<HTMLSelectElement>('rule-operator');
  for (const option of operator.options) option.disabled = isStatus && option.value !== '==' && option.value !== '!=';
  if (operator.selectedOptions[0]?.disabled === true) operator.value = '==';
}

function editRule(rule: RuleRecord): void {
  editing = rule;
  byId('rule-form-title').textContent = `Edit rule: ${rule.name}`;
  byId('rule-submit').textContent = 'Save rule';
  byId('rule-cancel').hidden = false;
  byId<HTMLInputElement>('rule-name').value = rule.name;
  byId<HTMLSelectElement>('rule-database').value = rule.database_id ?? '';
  byId<HTMLSelectElement>('rule-metric').value = rule.metric;
  showMetricUnit();
  byId<HTMLSelectElement>('rule-operator').value = rule.operator;
  if (typeof rule.threshold === 'string') byId<HTMLSelectElement>('rule-status').value = rule.threshold;
  else byId<HTMLInputElement>('rule-threshold').value = String(rule.threshold);
  byId<HTMLInputElement>('rule-duration').value = String(rule.duration_seconds);
  byId<HTMLSelectElement>('rule-severity').value = rule.severity;
  byId<HTMLInputElement>('rule-enabled').checked = rule.enabled;
  byId('rule-problem').hidden = true;
  byId<HTMLInputElement>('rule-name').focus();
}

function resetRuleForm(): void {
  editing = undefined;
  byId<HTMLFormElement>('rule-form').reset();
  byId('rule-form-title').textContent = 'New rule';
  byId('rule-submit').textContent = 'Create rule';
  byId('rule-cancel').hidden = true;
  byId('rule-problem').hidden = true;
  showMetricUnit();
}

for (const filter of [stateFilter, severityFilter, databaseFilter, spanFilter]) filter.addEventListener('change', () => loop.now());
if (canEdit) {
  wireResolve();
  wireRuleForm();
}
const loop = startRefreshLoop({
  refresh,
  onProblem: (text) => {
    problem.hidden = text === undefined;
    problem.textContent = text ?? '';
  },
});
