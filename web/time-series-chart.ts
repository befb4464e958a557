import uPlot from 'uplot';
import type { MetricsHistory, RolledValue } from './api-types.js';
import { formatValue, type Unit } from './format.js';

export interface ChartSeries {
  path: string;
  label: string;
  /** Drawn with the min..max band of each bucket when the data is rolled up. */
  band?: boolean;
  dashed?: boolean;
}

export interface ChartSpec {
  id: string;
  title: string;
  unit: Unit;
  series: ChartSeries[];
}

export const chartHeight = 220;

/** An alert rule's threshold, drawn across the chart of its metric. */
export interface ThresholdLine {
  value: number;
  label: string;
}

/** The bucket width of each rolled-up resolution. */
const resolutionMs: Record<MetricsHistory['resolution'], number | undefined> = { raw: undefined, '1m': 60_000, '5m': 300_000, '1h': 3_600_000, '1d': 86_400_000 };

/** How far apart two points of a series are expected to be: the database's interval for raw samples, else the bucket width. */
export function expectedStepMs(history: MetricsHistory, intervalMs: number): number {
  return resolutionMs[history.resolution] ?? intervalMs;
}

/** Colours from the stylesheet, so the charts follow the light or dark scheme. */
function palette() {
  const style = getComputedStyle(document.documentElement);
  const color = (name: string) => style.getPropertyValue(name).trim();
  return {
    text: color('--text'),
    grid: color('--border'),
    band: color('--chart-band'),
    threshold: color('--critical'),
    lines: [1, 2, 3, 4].map((n) => color(`--chart-${n}`)),
  };
}

/**
 * uPlot's columns for a chart: seconds, then per series its values (and for a banded series of
 * rolled-up data, its max and min). Where two points are further apart than 2.5 expected steps, a
 * null point is put between them so the line breaks: the database was not measured then.
 */
export function chartData(spec: ChartSpec, history: MetricsHistory, stepMs: number): uPlot.AlignedData {
  const rolled = history.resolution !== 'raw';
  const columns: (number | null)[][] = [[]];
  const extractors: ((metrics: Record<string, number | null | RolledValue>) => number | null)[] = [];
  for (const series of spec.series) {
    const value = (metrics: Record<string, number | null | RolledValue>) => metrics[series.path];
    if (!rolled) {
      extractors.push((metrics) => value(metrics) as number | null);
      continue;
    }
    extractors.push((metrics) => (value(metrics) as RolledValue | undefined)?.avg ?? null);
    if (series.band) {
      extractors.push((metrics) => (value(metrics) as RolledValue | undefined)?.max ?? null);
      extractors.push((metrics) => (value(metrics) as RolledValue | undefined)?.min ?? null);
    }
  }
  for (let index = 0; index < extractors.length; index++) columns.push([]);
  let previous: number | undefined;
  for (const point of history.data) {
    const at = Date.parse(point.timestamp);
    if (previous !== undefined && at - previous > stepMs * 2.5) {
      columns[0]!.push((previous + stepMs) / 1000);
      for (let index = 0; index < extractors.length; index++) columns[index + 1]!.push(null);
    }
    columns[0]!.push(at / 1000);
    extractors.forEach((extract, index) => columns[index + 1]!.push(extract(point.metrics)));
    previous = at;
  }
  return columns as uPlot.AlignedData;
}

/** A time-series chart of one spec over the page's span, sharing its crosshair with the page's other charts. */
export interface ChartOptions {
  /** The span shown, in seconds: the chosen range, or the part of it dragged across. */
  span: () => [number, number];
  thresholds: ThresholdLine[];
  /** Told the span (seconds) a pointer dragged across. */
  onDragged: (span: [number, number]) => void;
}

export function makeChart(spec: ChartSpec, rolled: boolean, data: uPlot.AlignedData, target: HTMLElement, { span, thresholds, onDragged }: ChartOptions): uPlot {
  const colors = palette();
  const series: uPlot.Series[] = [{ label: 'Time', value: (_u, seconds) => (seconds == null ? '' : new Date(seconds * 1000).toLocaleString()) }];
  const bands: uPlot.Band[] = [];
  const value = (_u: uPlot, raw: number | null) => (raw == null ? 'no data' : formatValue(raw, spec.unit));
  spec.series.forEach((line, index) => {
    const stroke = colors.lines[index % colors.lines.length]!;
    series.push({ label: rolled ? `${line.label} (avg)` : line.label, stroke, width: 2, value, ...(line.dashed && { dash: [6, 4] }) });
    if (rolled && line.band) {
      const high = series.length;
      series.push({ label: `${line.label} max`, stroke: colors.band, width: 1, value }, { label: `${line.label} min`, stroke: colors.band, width: 1, value });
      bands.push({ series: [high, high + 1], fill: colors.band });
    }
  });
  const axis = { stroke: colors.text, grid: { stroke: colors.grid, width: 1 }, ticks: { stroke: colors.grid, width: 1 } };
  return new uPlot(
    {
      width: Math.max(240, target.clientWidth),
      height: chartHeight,
      series,
      bands,
      // A drag selects a span for every chart of the page (onDragged), not for this one alone.
      cursor: { sync: { key: 'database-page' }, drag: { x: true, y: false, setScale: false, dist: 5 } },
      scales: {
        x: { time: true, range: () => span() },
        // From zero, and high enough to show the thresholds.
        y: { range: (_u, min, max) => [Math.min(0, min ?? 0), Math.max(max ?? 1, spec.unit === 'percent' ? 1 : 1e-3, ...thresholds.map((line) => line.value * 1.05))] },
      },
      axes: [axis, { ...axis, size: 70, values: (_u, splits) => splits.map((split) => formatValue(split, spec.unit)) }],
      hooks: {
        draw: [(u) => drawThresholds(u, thresholds, colors.threshold)],
        setSelect: [
          (u) => {
            if (u.select.width <= 0) return;
            onDragged([u.posToVal(u.select.left, 'x'), u.posToVal(u.select.left + u.select.width, 'x')]);
            u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
          },
        ],
      },
    },
    data,
    target,
  );
}

/** Each threshold as a dashed line across the plot, labelled at its right end. */
function drawThresholds(u: uPlot, thresholds: ThresholdLine[], color: string): void {
  const { ctx, bbox } = u;
  ctx.save();
  ctx.strokeStyle = color;
  ctx.fillStyle = color;
  ctx.lineWidth = uPlot.pxRatio;
  ctx.setLineDash([6 * uPlot.pxRatio, 4 * uPlot.pxRatio]);
  ctx.font = `${11 * uPlot.pxRatio}px system-ui, sans-serif`;
  ctx.textAlign = 'right';
  for (const line of thresholds) {
    const y = Math.round(u.valToPos(line.value, 'y', true));
    ctx.beginPath();
    ctx.moveTo(bbox.left, y);
    ctx.lineTo(bbox.left + bbox.width, y);
    ctx.stroke();
    ctx.fillText(line.label, bbox.left + bbox.width - 4, y - 4 * uPlot.pxRatio);
  }
  ctx.restore();
}
