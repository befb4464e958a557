import { z } from 'zod';
import { integerQueryParam } from '../http/paging.js';
import { rangeParam } from '../metrics/metrics-schema.js';
import { querySorts } from './queries-repository.js';

export const queriesQuery = z.strictObject({
  range: rangeParam.prefault('24h').describe('Duration <n>(s|m|h|d), 1m..30d; default 24h'),
  sort: z.enum(querySorts).default('total_time'),
  limit: integerQueryParam(z.number().min(1).max(100)).default(20).describe('Statements to return, 1..100'),
});
export type QueriesQuery = z.output<typeof queriesQuery>;

export const queryRecord = z
  .object({
    id: z.string().describe('query_<22 base62>: stable per statement and database'),
    database_id: z.string(),
    fingerprint: z.string().describe("The engine's id of the normalized statement: pg_stat_statements queryid, performance_schema digest"),
    query: z.string().describe('Normalized text, literals replaced'),
    calls: z.number(),
    total_time_ms: z.number(),
    mean_time_ms: z.number(),
    max_time_ms: z.number().nullable().describe('Longest call within the range, when the engine reported one'),
    rows: z.number(),
    first_seen_at: z.string().describe('When dbmon first saw the statement run (within retention)'),
    last_seen_at: z.string().describe('End of the last collection interval within the range in which it ran'),
  })
  .meta({ id: 'SlowQuery' });

export const queryList = z
  .object({
    database_id: z.string(),
    range: z.string(),
    sort: z.enum(querySorts),
    data: z.array(queryRecord).describe('Numbers are deltas over the range, not lifetime counters'),
  })
  .meta({ id: 'SlowQueryList' });
