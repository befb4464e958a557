import { getAll, getJson } from './api.js';
import type { Alert, Database, MetricsHistory } from './api-types.js';
import { element, formatAge, formatValue, timeElement } from './format.js';
import { pacedNotice, startRefreshLoop } from './refresh-loop.js';
import { sparkline } from './sparkline.js';
import { statusBadge } from './status-badge.js';

/** The overview at `/`: every database of the organization at a glance, from /v1, refreshed in place. */

const hourMs = 3_600_000;
const overviewMetrics = ['connections.total', 'connections.max', 'throughput.transactions_per_second', 'latency.p95_query_time_ms'];

interface DatabaseView {
  database: Database;
  /** The last hour's samples; undefined for a database that has none yet (pending). */
  history: MetricsHistory | undefined;
  activeAlerts: number;
}

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const rows = byId<HTMLTableSectionElement>('database-rows');
const statusFilter = byId<HTMLSelectElement>('status-filter');
const engineFilter = byId<HTMLSelectElement>('engine-filter');
const refreshStatus = byId<HTMLElement>('refresh-status');
const problem = byId<HTMLElement>('refresh-problem');
const alertsList = byId<HTMLElement>('active-alerts');

async function refresh(): Promise<number> {
  const [databases, alerts] = await Promise.all([getAll<Database>('/v1/databases'), getAll<Alert>('/v1/alerts?status=active')]);
  const histories = await Promise.all(
    databases.map((database) =>
      database.status === 'pending'
        ? undefined
        : getJson<MetricsHistory>(`/v1/databases/${encodeURIComponent(database.id)}/metrics/history?metrics=${overviewMetrics.join(',')}&range=1h&resolution=raw`),
    ),
  );
  const now = Date.now();
  const views = databases.map((database, index) => ({
    database,
    history: histories[index],
    activeAlerts: alerts.filter((alert) => alert.database_id === database.id).length,
  }));
  drawAlerts(alerts, new Map(databases.map((database) => [database.id, database.name])));
  drawRows(views, now);
  refreshStatus.replaceChildren('Updated ', timeElement(new Date(now)), '; refreshes by itself.');
  refreshStatus.append(pacedNote);
  const monitored = databases.filter((database) => database.monitoring.enabled).map((database) => database.monitoring.interval_seconds);
  return (monitored.length === 0 ? 60 : Math.min(...monitored)) * 1000;
}

function drawAlerts(alerts: Alert[], names: Map<string, string>): void {
  if (alerts.length === 0) {
    alertsList.replaceChildren(element('p', 'muted', 'No active alerts.'));
    return;
  }
  const list = element('ul', 'alert-list');
  for (const alert of alerts) {
    const item = element('li', `alert-item severity-${alert.severity}`);
    const link = element('a', undefined, names.get(alert.database_id) ?? alert.database_id);
    link.href = `/databases/${encodeURIComponent(alert.database_id)}`;
    item.append(element('span', 'severity', alert.severity), link, element('span', 'alert-message', alert.message), timeElement(new Date(alert.triggered_at)));
    list.append(item);
  }
  alertsList.replaceChildren(list);
}

function drawRows(views: DatabaseView[], now: number): void {
  const focusedHref = rows.contains(document.activeElement) ? (document.activeElement as HTMLAnchorElement).getAttribute('href') : null;
  rows.replaceChildren(...views.map((view) => row(view, now)));
  if (focusedHref !== null) rows.querySelector<HTMLAnchorElement>(`a[href="${CSS.escape(focusedHref)}"]`)?.focus();
  applyFilters();
}

function row({ database, history, activeAlerts }: DatabaseView, now: number): HTMLTableRowElement {
  const tr = element('tr');
  tr.dataset.status = database.status;
  tr.dataset.engine = database.type;
  const name = element('a', undefined, database.name);
  name.href = `/databases/${encodeURIComponent(database.id)}`;
  const nameCell = element('th');
  nameCell.scope = 'row';
  nameCell.append(name);
  if (database.status === 'unreachable' && database.last_error !== null) nameCell.append(element('span', 'row-note', database.last_error.message));
  const statusCell = element('td');
  statusCell.append(statusBadge(database.status));
  const engine = element('td', undefined, database.type);
  engine.append(element('span', 'row-note', database.version === null ? 'version not known yet' : database.version));
  const samples = (history?.data ?? []).map((point) => ({ at: Date.parse(point.timestamp), metrics: point.metrics as Record<string, number | null> }));
  // A collection that failed leaves a sample without values: the figures are those of the newest one measured.
  const last = samples.findLast((sample) => Object.values(sample.metrics).some((value) => value !== null));
  const maxStepMs = database.monitoring.interval_seconds * 2500;
  const series = (path: string) => samples.map((sample) => ({ at: sample.at, value: sample.metrics[path] ?? null }));
  const noData = () => element('td', 'muted', history === undefined ? 'no data yet' : samples.length === 0 ? 'no sample this hour' : 'not measured this hour');

  let connections: HTMLTableCellElement;
  let tps: HTMLTableCellElement;
  let p95: HTMLTableCellElement;
  if (last === undefined) {
    [connections, tps, p95] = [noData(), noData(), noData()];
  } else {
    const total = last.metrics['connections.total'] ?? null;
    const max = last.metrics['connections.max'] ?? null;
    connections = sparkCell(
      series('connections.total'),
      now,
      maxStepMs,
      'Connections over the last hour',
      total === null ? 'not measured' : max === null ? String(total) : `${total} of ${max}`,
    );
    const rate = last.metrics['throughput.transactions_per_second'] ?? null;
    tps = sparkCell(series('throughput.transactions_per_second'), now, maxStepMs, 'Transactions per second over the last hour', rate === null ? 'not measured yet' : formatValue(rate, 'per_second'));
    const latency = last.metrics['latency.p95_query_time_ms'] ?? null;
    p95 = element('td', latency === null ? 'muted' : 'number', latency === null ? 'no statements measured' : formatValue(latency, 'milliseconds'));
  }
  const alerts = element('td', activeAlerts === 0 ? 'number muted' : 'number alerts-count', String(activeAlerts));
  tr.append(nameCell, statusCell, engine, connections, tps, p95, alerts, lastSampleCell(database, last?.at, now));
  return tr;
}

function sparkCell(points: { at: number; value: number | null }[], now: number, maxStepMs: number, label: string, latest: string): HTMLTableCellElement {
  const cell = element('td');
  const spark = element('div', 'spark');
  spark.append(sparkline(points, now - hourMs, now, maxStepMs, `${label}; latest ${latest}`), element('span', 'number', latest));
  cell.append(spark);
  return cell;
}

/** The age of the newest measured sample; stale (flagged in words) when two intervals and a half have passed without one. */
function lastSampleCell(database: Database, at: number | undefined, now: number): HTMLTableCellElement {
  const cell = element('td');
  if (at === undefined) {
    cell.textContent = database.status === 'pending' ? 'none yet' : 'none measured this hour';
    cell.className = 'muted';
    return cell;
  }
  const age = now - at;
  cell.append(formatAge(age));
  cell.title = new Date(at).toISOString();
  if (database.monitoring.enabled && age > database.monitoring.interval_seconds * 2500) cell.append(' ', element('span', 'stale', 'stale'));
  return cell;
}

function applyFilters(): void {
  let shown = 0;
  for (const tr of rows.rows) {
    const matches = (statusFilter.value === '' || tr.dataset.status === statusFilter.value) && (engineFilter.value === '' || tr.dataset.engine === engineFilter.value);
    tr.hidden = !matches;
    if (matches) shown++;
  }
  byId('no-databases').hidden = rows.rows.length !== 0;
  byId('no-match').hidden = rows.rows.length === 0 || shown !== 0;
}

/** Said while the refreshes are spaced out to make the hour's API budget last. */
const pacedNote = element('span');
pacedNote.id = 'refresh-paced';

statusFilter.addEventListener('change', applyFilters);
engineFilter.addEventListener('change', applyFilters);
startRefreshLoop({
  refresh,
  onProblem: (text) => {
    problem.hidden = text === undefined;
    problem.textContent = text ?? '';
  },
  onPaced: (next) => {
    if (next === undefined) pacedNote.replaceChildren();
    else pacedNote.replaceChildren(' ', ...pacedNotice(next));
  },
});
