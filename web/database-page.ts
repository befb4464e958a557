import type uPlot from 'uplot';
import { getAll, getJson } from './api.js';
import type { AlertRule, Database, MetricsHistory, MetricsSnapshot } from './api-types.js';
import { element, formatAge, formatValue, timeElement } from './format.js';
import { refreshSections } from './live-sections.js';
import { pacedNotice, startRefreshLoop } from './refresh-loop.js';
import { statusBadge } from './status-badge.js';
import { chartData, chartHeight, expectedStepMs, makeChart, type ChartSpec, type ThresholdLine } from './time-series-chart.js';

/** The database page: its snapshot metrics as time series over a chosen span, from /v1, refreshed in place. */

const charts: ChartSpec[] = [
  { id: 'cpu', title: 'CPU', unit: 'percent', series: [{ path: 'cpu_usage', label: 'CPU', band: true }] },
  { id: 'memory', title: 'Memory', unit: 'percent', series: [{ path: 'memory_usage', label: 'Memory', band: true }] },
  { id: 'disk', title: 'Disk', unit: 'percent', series: [{ path: 'disk_usage', label: 'Disk', band: true }] },
  {
    id: 'connections',
    title: 'Connections (against max)',
    unit: 'count',
    series: [
      { path: 'connections.total', label: 'Total', band: true },
      { path: 'connections.active', label: 'Active' },
      { path: 'connections.idle', label: 'Idle' },
      { path: 'connections.max', label: 'Max', dashed: true },
    ],
  },
  { id: 'qps', title: 'Queries per second', unit: 'per_second', series: [{ path: 'throughput.queries_per_second', label: 'Queries', band: true }] },
  { id: 'tps', title: 'Transactions per second', unit: 'per_second', series: [{ path: 'throughput.transactions_per_second', label: 'Transactions', band: true }] },
  {
    id: 'latency',
    title: 'Statement latency (mean, p95, p99)',
    unit: 'milliseconds',
    series: [
      { path: 'latency.avg_query_time_ms', label: 'Mean' },
      { path: 'latency.p95_query_time_ms', label: 'p95', band: true },
      { path: 'latency.p99_query_time_ms', label: 'p99' },
    ],
  },
];

/** History answers with every metric it keeps unless asked for some: the page asks for those it charts. */
const chartedMetrics = [...new Set(charts.flatMap((spec) => spec.series.map((series) => series.path)))].join(',');

const latencySources = {
  histogram: 'Percentiles from the engine’s latency histogram.',
  estimate: 'Percentiles estimated from per-statement means and deviations (the engine keeps no histogram).',
};

const root = document.getElementById('database-page')!;
const databaseId = root.dataset.databaseId!;
const basePath = `/v1/databases/${encodeURIComponent(databaseId)}`;
const rangeButtons = [...root.querySelectorAll<HTMLButtonElement>('button[data-range]')];
const summary = document.getElementById('database-summary')!;
const problem = document.getElementById('refresh-problem')!;
const chartGrid = document.getElementById('charts')!;
let range = rangeButtons.find((button) => button.getAttribute('aria-pressed') === 'true')?.dataset.range ?? '1h';
let span: [number, number] = [0, 1];
/** The part of the span dragged across, until the whole span is asked for again. */
let zoom: [number, number] | undefined;
const zoomReset = document.getElementById('zoom-reset') as HTMLButtonElement;
const zoomSpan = document.getElementById('zoom-span')!;
const dragHint = zoomSpan.textContent!;
/** The charts drawn, by spec id, with whether they show rolled-up data (its band series make another chart). */
const drawn = new Map<string, { plot: uPlot; rolled: boolean; note: HTMLElement }>();

/** The sections rendered on the server that refresh in place (the connection settings do not: they are a form being edited). */
const liveSections = ['slow-queries', 'optimizations', 'alert-rules'] as const;

/** The enabled rules that watch this database, read once with the page. */
let rules: AlertRule[] | undefined;

async function refresh(): Promise<number> {
  rules ??= (await getAll<AlertRule>('/v1/alerts/rules')).filter((rule) => rule.enabled && (rule.database_id === null || rule.database_id === databaseId));
  const [database, snapshot, history] = await Promise.all([
    getJson<Database>(basePath),
    getJson<MetricsSnapshot>(`${basePath}/metrics?range=5m`),
    getJson<MetricsHistory>(`${basePath}/metrics/history?metrics=${chartedMetrics}&range=${range}&resolution=auto`),
  ]);
  const intervalMs = database.monitoring.interval_seconds * 1000;
  span = [Date.parse(history.from) / 1000, Date.parse(history.to) / 1000];
  drawSummary(database, snapshot, history);
  drawCharts(history, expectedStepMs(history, intervalMs));
  return history.resolution === 'raw' ? intervalMs : Math.max(intervalMs, expectedStepMs(history, intervalMs));
}

function drawSummary(database: Database, snapshot: MetricsSnapshot, history: MetricsHistory): void {
  const items = element('dl', 'summary');
  const add = (term: string, ...details: (Node | string)[]) => {
    const dd = element('dd');
    dd.append(...details);
    items.append(element('dt', undefined, term), dd);
  };
  add('Status', statusBadge(database.status));
  if (database.last_error !== null && database.status === 'unreachable') add('Last error', database.last_error.message, ' (', timeElement(new Date(database.last_error.at)), ')');
  add('Last sample', ...(snapshot.timestamp === null ? ['no data yet'] : [formatAge(Date.now() - Date.parse(snapshot.timestamp)), ' (', timeElement(new Date(snapshot.timestamp)), ')']));
  add('Collected every', `${database.monitoring.interval_seconds} s${database.monitoring.enabled ? '' : ' (monitoring paused)'}`);
  const source = snapshot.metrics.latency.source;
  add('Latency source', source === null ? 'not known yet' : latencySources[source]);
  add('Resolution', history.resolution === 'raw' ? 'every sample' : `${history.resolution} buckets (line: average; band: minimum to maximum)`);
  summary.replaceChildren(items);
}

function drawCharts(history: MetricsHistory, stepMs: number): void {
  const rolled = history.resolution !== 'raw';
  for (const spec of charts) {
    const data = chartData(spec, history, stepMs);
    const hasValues = data.slice(1).some((column) => column.some((value) => value !== null));
    let chart = drawn.get(spec.id);
    if (chart === undefined || chart.rolled !== rolled) {
      chart?.plot.destroy();
      const { target, note } = chartPlace(spec);
      chart = { plot: makeChart(spec, rolled, data, target, { span: () => zoom ?? span, thresholds: thresholdsOf(spec), onDragged: zoomTo }), rolled, note };
      drawn.set(spec.id, chart);
    } else {
      chart.plot.setData(data);
    }
    chart.note.textContent = hasValues ? '' : history.data.length === 0 ? 'No data in this range yet.' : 'Not measured in this range.';
    chart.note.hidden = hasValues;
  }
}

/** The numeric thresholds of the rules on this chart's metrics. */
function thresholdsOf(spec: ChartSpec): ThresholdLine[] {
  return (rules ?? []).flatMap((rule) => {
    const series = spec.series.find((candidate) => candidate.path === rule.metric);
    if (series === undefined || typeof rule.threshold !== 'number') return [];
    return [{ value: rule.threshold, label: `${rule.name}: ${series.label} ${rule.operator} ${formatValue(rule.threshold, spec.unit)}` }];
  });
}

/** The figure of a chart, made the first time: its caption, a note for when it has nothing to draw, and the chart's place. */
function chartPlace(spec: ChartSpec): { target: HTMLElement; note: HTMLElement } {
  const id = `chart-${spec.id}`;
  let figure = document.getElementById(id);
  if (figure === null) {
    figure = element('figure', 'chart-figure');
    figure.id = id;
    const note = element('p', 'chart-note muted');
    note.hidden = true;
    const rulesNote = thresholdsOf(spec).map((line) => line.label);
    figure.append(element('figcaption', undefined, spec.title), note, element('div', 'chart'));
    if (rulesNote.length > 0) figure.append(element('p', 'hint muted', `Alert rules (dashed): ${rulesNote.join('; ')}`));
    chartGrid.append(figure);
    // Each chart takes its place's width, whatever changes it (window, zoom, the grid's columns).
    new ResizeObserver(([entry]) => drawn.get(spec.id)?.plot.setSize({ width: Math.max(240, Math.floor(entry!.contentRect.width)), height: chartHeight })).observe(
      figure.querySelector('.chart')!,
    );
  }
  return { target: figure.querySelector<HTMLElement>('.chart')!, note: figure.querySelector<HTMLElement>('.chart-note')! };
}

/** Shows `shown` (seconds) on every chart, or the whole span when undefined. */
function zoomTo(shown: [number, number] | undefined): void {
  zoom = shown;
  zoomReset.hidden = shown === undefined;
  if (shown === undefined) zoomSpan.replaceChildren(dragHint);
  else zoomSpan.replaceChildren('Showing ', timeElement(new Date(shown[0] * 1000)), ' to ', timeElement(new Date(shown[1] * 1000)), '.');
  const [min, max] = zoom ?? span;
  for (const { plot } of drawn.values()) plot.setScale('x', { min, max });
}

zoomReset.addEventListener('click', () => zoomTo(undefined));

// The sections refresh at the database's interval whatever span the charts show (a 30 d span's charts refresh once a day).
// The page came with them: the first run only waits.
const sectionsProblem = document.getElementById('sections-problem')!;
let sectionsJustRendered = true;
startRefreshLoop({
  refresh: async () => {
    if (!sectionsJustRendered) await refreshSections(liveSections);
    sectionsJustRendered = false;
    return Number(root.dataset.intervalSeconds) * 1000;
  },
  onProblem: (text) => {
    sectionsProblem.hidden = text === undefined;
    sectionsProblem.textContent = text === undefined ? '' : `Slow queries, optimizations and rules: ${text}`;
  },
});

const paced = document.getElementById('refresh-paced')!;
const loop = startRefreshLoop({
  refresh,
  onProblem: (text) => {
    problem.hidden = text === undefined;
    problem.textContent = text ?? '';
  },
  onPaced: (next) => {
    paced.hidden = next === undefined;
    paced.replaceChildren(...(next === undefined ? [] : pacedNotice(next)));
  },
});

for (const button of rangeButtons) {
  button.addEventListener('click', () => {
    range = button.dataset.range!;
    zoomTo(undefined);
    for (const other of rangeButtons) other.setAttribute('aria-pressed', String(other === button));
    loop.now();
  });
}

import './database-sections.js';
