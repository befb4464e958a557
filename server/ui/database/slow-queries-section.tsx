import type { SlowQuery, SlowQuerySort } from './database-sections-source.js';
import { count, milliseconds } from './figures.js';
import { ScrollRegion } from '../scroll-region.js';

export const slowQueryRanges = ['1h', '6h', '24h', '7d', '30d'] as const;
export type SlowQueryRange = (typeof slowQueryRanges)[number];

const columns: { sort: SlowQuerySort; label: string }[] = [
  { sort: 'total_time', label: 'Total time' },
  { sort: 'mean_time', label: 'Mean' },
  { sort: 'calls', label: 'Calls' },
  { sort: 'max_time', label: 'Max' },
];

export const slowQueriesHref = (range: string, sort: SlowQuerySort) => `?${new URLSearchParams({ queries_range: range, queries_sort: sort })}#slow-queries`;

/** The statements of the range, sorted by one measure: sorting and the range are links, so they work without script. */
export function SlowQueriesSection({ databaseId, queries, range, sort }: { databaseId: string; queries: SlowQuery[]; range: SlowQueryRange; sort: SlowQuerySort }) {
  return (
    <section id="slow-queries" aria-labelledby="slow-queries-title" class="database-section">
      <h2 id="slow-queries-title">Slow queries</h2>
      <nav class="range-picker" aria-label="Slow queries' time range">
        {slowQueryRanges.map((candidate) => (
          <a class="button secondary" href={slowQueriesHref(candidate, sort)} aria-current={candidate === range ? 'true' : undefined}>
            {candidate.replace(/(\d+)/, '$1 ')}
          </a>
        ))}
      </nav>
      {queries.length === 0 ? (
        <p class="muted">{`No statement ran in the last ${range.replace(/(\d+)/, '$1 ')}, or none has been collected yet.`}</p>
      ) : (
        <ScrollRegion label="Slow queries, scrollable">
          <table class="slow-queries">
            <caption class="visually-hidden">{`Statements of the last ${range}, by ${columns.find((column) => column.sort === sort)!.label.toLowerCase()}`}</caption>
            <thead>
              <tr>
                <th scope="col">Statement</th>
                {columns.map((column) => (
                  <th scope="col" class="number" aria-sort={column.sort === sort ? 'descending' : undefined}>
                    <a href={slowQueriesHref(range, column.sort)}>{column.label}</a>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {queries.map((query) => (
                <tr>
                  <th scope="row" class="statement">
                    <a href={`/databases/${encodeURIComponent(databaseId)}/queries/${encodeURIComponent(query.id)}?range=${range}`}>
                      <code>{query.query}</code>
                    </a>
                  </th>
                  <td class="number">{milliseconds(query.total_time_ms)}</td>
                  <td class="number">{milliseconds(query.mean_time_ms)}</td>
                  <td class="number">{count(query.calls)}</td>
                  <td class="number">{milliseconds(query.max_time_ms)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
    </section>
  );
}
