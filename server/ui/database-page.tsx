import type { ComponentChildren } from 'preact';
import type { DatabaseType } from '../../common/agent-protocol/database-types.js';

/** What the page's heading names: the rest comes from /v1 in the browser. */
export interface DatabaseHeading {
  id: string;
  name: string;
  type: DatabaseType;
  version: string | null;
  monitoring: { interval_seconds: number };
}

export const chartRanges = ['1h', '6h', '24h', '7d', '30d'] as const;

/**
 * One database's frame: its name, the range picker and the place of the charts, filled from /v1 by
 * web/database-page.ts; then the sections rendered on the server (`children`).
 */
export function DatabasePage({ database, children }: { database: DatabaseHeading; children?: ComponentChildren }) {
  return (
    <div id="database-page" data-database-id={database.id} data-interval-seconds={database.monitoring.interval_seconds}>
      <p class="breadcrumb">
        <a href="/">Overview</a>
      </p>
      <h1>{database.name}</h1>
      <p class="muted">{`${database.type} ${database.version ?? '(version not known yet)'}`}</p>
      <p id="refresh-problem" class="alert" role="alert" hidden />
      <p id="refresh-paced" class="hint muted" hidden />
      <div id="database-summary">
        <p class="muted">Loading…</p>
      </div>
      <div class="range-picker" role="group" aria-label="Time range">
        {chartRanges.map((range, index) => (
          <button type="button" class="secondary" data-range={range} aria-pressed={index === 0 ? 'true' : 'false'}>
            {range.replace(/(\d+)/, '$1 ')}
          </button>
        ))}
      </div>
      <p class="hint muted">
        <span id="zoom-span">Drag across a chart to look closer.</span>{' '}
        <button type="button" id="zoom-reset" class="secondary" hidden>
          Show the whole span
        </button>
      </p>
      <div id="charts" class="charts" />
      <noscript>
        <p class="alert">The charts are drawn by the page's script: allow JavaScript for this site to see them.</p>
      </noscript>
      {children}
    </div>
  );
}
