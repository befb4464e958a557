import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import t from 'tap';
import { runPass } from '../../../server/jobs/background-job.js';
import { makeSnapshot } from '../../helpers/snapshot-factory.js';
import { createTenant, startTestServer } from '../../helpers/test-server.js';

// The history answer's bytes, pinned: the SHA-256 of each body the code of 5f63641 sent (written
// with WRITE_HISTORY_BODIES=1 on that commit), for the same requests over the same samples, read
// while they are all pending, folded, and sealed with newer samples pending.
const fixture = new URL('../../fixtures/history-bodies.json', import.meta.url);
const hour = 3_600_000;
const now = new Date('2026-11-22T12:00:00Z');
const from = now.getTime() - 4 * hour - 30_000;

/** Values off their stored steps, long decimals, unreachable samples, a null now and then. */
function snapshotAt(i: number) {
  const reachable = i % 23 !== 7;
  return makeSnapshot(new Date(from + i * 10_000), {
    reachable,
    metrics: reachable
      ? {
          cpu_usage: (i % 100) * 0.123456 + 1 / 3,
          memory_usage: 40 + (i % 17) / 7,
          connections: { active: i % 7, idle: 1, total: (i % 7) + 1, max: 10 },
          throughput: { queries_per_second: 10 + (i % 9) * 0.25, transactions_per_second: i % 13 === 0 ? null : (i % 5) * 1.00049 },
          latency: { avg_query_time_ms: 1.5 + (i % 11) * 0.3333, p95_query_time_ms: 4.00071, p99_query_time_ms: i % 3 ? 9.9999 : null, source: i % 4 ? 'histogram' : 'estimate' },
        }
      : { cpu_usage: null, connections: { active: null, idle: null, total: null, max: null } },
  });
}

const iso = (ms: number) => new Date(ms).toISOString();
const span = (fromMs: number, toMs: number) => `from=${iso(fromMs)}&to=${iso(toMs)}`;
const requests = [
  `resolution=raw&metrics=cpu_usage&${span(now.getTime() - 80 * 60_000, now.getTime())}`,
  `resolution=raw&metrics=connections.active,cpu_usage&${span(now.getTime() - 65 * 60_000 + 5, now.getTime() - 40 * 60_000)}`,
  `resolution=raw&${span(now.getTime() - 63 * 60_000, now.getTime() - 55 * 60_000)}`,
  `resolution=1m&metrics=cpu_usage&${span(from, now.getTime())}`,
  `resolution=1m&metrics=cpu_usage,connections.active&${span(from + 17_000, now.getTime())}`,
  `resolution=1m&${span(now.getTime() - 75 * 60_000, now.getTime() - 40 * 60_000)}`,
  `resolution=5m&metrics=latency.p99_query_time_ms,throughput.transactions_per_second&${span(from, now.getTime())}`,
  `resolution=1h&${span(from - 24 * hour, now.getTime())}`,
  `resolution=1d&${span(from - 7 * 24 * hour, now.getTime())}`,
  'resolution=auto&metrics=cpu_usage&range=7d',
  'resolution=auto&metrics=memory_usage&range=3h',
  'range=1h',
  `resolution=1m&metrics=cpu_usage&${span(now.getTime() + hour, now.getTime() + 2 * hour)}`,
];

t.test("history answers keep their bytes: pending, folded, and sealed with newer samples pending", async (t) => {
  const server = await startTestServer({ now });
  t.teardown(server.close);
  const tenant = createTenant(server.services, now);
  const created = await server.request('POST', '/v1/databases', {
    key: tenant.key,
    body: { name: 'b', type: 'postgresql', connection: { host: 'h', database: 'd', username: 'u' }, monitoring: { interval_seconds: 10 } },
  });
  const databaseId: string = created.body.id;
  const ingest = (first: number, end: number) => {
    const samples = Array.from({ length: end - first }, (_, i) => ({ database_id: databaseId, snapshot: snapshotAt(first + i) }));
    for (let start = 0; start < samples.length; start += 500) {
      server.services.ingest.ingest({ kind: 'embedded' }, { batch_id: `b-${first + start}`, samples: samples.slice(start, start + 500) }, now);
    }
  };
  // The database's id is random: it is left out of the hashed bodies.
  const bodies = async (state: string) => {
    const hashes: Record<string, string> = {};
    for (const query of requests) {
      const response = await server.request('GET', `/v1/databases/${databaseId}/metrics/history?${query}`, { key: tenant.key });
      t.equal(response.status, 200, query);
      t.equal(response.headers.get('content-type'), 'application/json; charset=utf-8', query);
      const text = response.text.replace(databaseId, 'DATABASE');
      hashes[`${state} ${query}`] = `${text.length} ${createHash('sha256').update(text).digest('hex')}`;
    }
    return hashes;
  };

  ingest(0, 4 * 360);
  const pending = await bodies('pending');
  runPass(server.services.rollups, now);
  const folded = await bodies('folded');
  runPass(server.services.seal, now);
  runPass(server.services.rollupSeal, now);
  t.ok((server.db.prepare('SELECT count(*) FROM rollup_blocks').pluck().get() as number) > 0, 'rollup spans sealed');
  t.ok((server.db.prepare('SELECT count(*) FROM sample_hours').pluck().get() as number) > 0, 'raw hours sealed');
  ingest(4 * 360, 4 * 360 + 3);
  const sealed = await bodies('sealed');
  const got = { ...pending, ...folded, ...sealed };

  if (process.env.WRITE_HISTORY_BODIES === '1') writeFileSync(fixture, `${JSON.stringify(got, null, 2)}\n`);
  const expected = JSON.parse(readFileSync(fixture, 'utf8')) as Record<string, string>;
  t.same(Object.keys(got), Object.keys(expected), 'the same requests');
  for (const [request, hash] of Object.entries(expected)) t.equal(got[request], hash, request);
});
