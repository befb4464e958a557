import { BucketChart } from './bucket-chart.js';
import type { QueryBucket, SlowQuery } from './database-sections-source.js';
import { count, milliseconds, Time } from './figures.js';
import { slowQueriesHref, slowQueryRanges, type SlowQueryRange } from './slow-queries-section.js';

export interface QueryPageProps {
  database: { id: string; name: string };
  queryId: string;
  text: string;
  totals: SlowQuery | undefined;
  history: QueryBucket[];
  range: SlowQueryRange;
  canWrite: boolean;
}

/** One statement: its normalized text, its figures over the range and over time, and a way to ask for an optimization. */
export function QueryPage({ database, queryId, text, totals, history, range, canWrite }: QueryPageProps) {
  const databasePath = `/databases/${encodeURIComponent(database.id)}`;
  return (
    <div id="query-page" data-database-id={database.id} data-query-id={queryId}>
      <p class="breadcrumb">
        <a href="/">Overview</a> › <a href={`${databasePath}${slowQueriesHref(range, 'total_time')}`}>{database.name}</a>
      </p>
      <h1>Slow query</h1>
      <pre class="statement">
        <code>{text}</code>
      </pre>
      <nav class="range-picker" aria-label="Time range">
        {slowQueryRanges.map((candidate) => (
          <a class="button secondary" href={`?range=${candidate}`} aria-current={candidate === range ? 'true' : undefined}>
            {candidate.replace(/(\d+)/, '$1 ')}
          </a>
        ))}
      </nav>
      {totals === undefined ? (
        <p class="muted">{`It did not run in the last ${range.replace(/(\d+)/, '$1 ')}.`}</p>
      ) : (
        <dl>
          <dt>Calls</dt>
          <dd>{count(totals.calls)}</dd>
          <dt>Total time</dt>
          <dd>{milliseconds(totals.total_time_ms)}</dd>
          <dt>Mean</dt>
          <dd>{milliseconds(totals.mean_time_ms)}</dd>
          <dt>Max</dt>
          <dd>{milliseconds(totals.max_time_ms)}</dd>
          <dt>Rows</dt>
          <dd>{count(totals.rows)}</dd>
          <dt>First seen</dt>
          <dd>
            <Time at={totals.first_seen_at} />
          </dd>
          <dt>Last ran</dt>
          <dd>
            <Time at={totals.last_seen_at} />
          </dd>
        </dl>
      )}
      <div class="bucket-charts">
        <BucketChart label="Calls" buckets={history} value={(bucket) => bucket.calls} unit={(value) => `${count(value)} calls`} />
        <BucketChart label="Mean time" buckets={history} value={(bucket) => bucket.meanTimeMs} unit={milliseconds} />
      </div>
      {canWrite && (
        <p class="actions">
          <button type="button" id="request-optimization" data-database-id={database.id} data-query-id={queryId}>
            Request an optimization
          </button>
          <span id="optimization-requested" role="status" />
        </p>
      )}
    </div>
  );
}
