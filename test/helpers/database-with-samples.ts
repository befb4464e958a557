import { makeSnapshot } from './snapshot-factory.js';
import { createTenant, type TestServer } from './test-server.js';

/**
 * A database with `count` samples every 10 s from `from`, ingested as an agent sends them: sample i
 * has cpu `cpu(i)` and connections.active i % 7, one in five is unreachable (no values). `ingest`
 * adds samples i = offset .. offset + n - 1, shifted by `shiftMs` (late samples between others).
 */
export async function databaseWithSamples(server: TestServer, now: Date, from: number, count: number, cpu: (i: number) => number = (i) => i) {
  const tenant = createTenant(server.services, now);
  const created = await server.request('POST', '/v1/databases', {
    key: tenant.key,
    body: { name: 'r', type: 'postgresql', connection: { host: 'h', database: 'd', username: 'u' }, monitoring: { interval_seconds: 10 } },
  });
  const databaseId: string = created.body.id;
  const ingest = (offset: number, n: number, batch: string, shiftMs = 0) => {
    const samples = Array.from({ length: n }, (_, k) => {
      const i = offset + k;
      const reachable = i % 5 !== 4;
      return {
        database_id: databaseId,
        snapshot: makeSnapshot(new Date(from + i * 10_000 + shiftMs), {
          reachable,
          metrics: reachable
            ? { cpu_usage: cpu(i), connections: { active: i % 7, idle: 1, total: (i % 7) + 1, max: 10 } }
            : { cpu_usage: null, connections: { active: null, idle: null, total: null, max: null } },
        }),
      };
    });
    for (let start = 0; start < samples.length; start += 500) {
      server.services.ingest.ingest({ kind: 'embedded' }, { batch_id: `${batch}-${String(start).padStart(8, '0')}`, samples: samples.slice(start, start + 500) }, now);
    }
  };
  ingest(0, count, `${databaseId}-first`);
  return { tenant, databaseId, ingest };
}
