import t from 'tap';
import { makeSnapshot } from '../../helpers/snapshot-factory.js';
import { createTenant, startTestServer, type TestServer } from '../../helpers/test-server.js';

// The stock rule "Database unreachable for 2 minutes" as Prometheus's `up == 0` with `for: 2m`:
// it fires once the database has been unreachable for its hold, and resolves when the database
// answers again, whatever the silence or failures before lasted (the hold delays firing only).

type Overrides = Parameters<typeof makeSnapshot>[1];
let batchNumber = 0;
const second = 1000;

/** Snapshots 10 s apart from `startMs`, stored as one batch received 2 s after the last. */
function ingest(server: TestServer, databaseId: string, startMs: number, ...snapshots: Overrides[]): number {
  const samples = snapshots.map((overrides, i) => ({ database_id: databaseId, snapshot: makeSnapshot(new Date(startMs + i * 10 * second), overrides) }));
  const lastMs = startMs + (snapshots.length - 1) * 10 * second;
  server.services.ingest.ingest({ kind: 'embedded' }, { batch_id: `unreachable-${++batchNumber}`, samples }, new Date(lastMs + 2 * second));
  return lastMs;
}

const down: Overrides = { reachable: false, error: 'connect ECONNREFUSED' };

t.test('the stock unreachable alert', async (t) => {
  const server = await startTestServer({ now: new Date('2026-11-23T08:00:00Z') });
  t.teardown(server.close);
  const { key } = createTenant(server.services, server.clock.now);
  const createDatabase = async (name: string) => {
    const response = await server.request('POST', '/v1/databases', {
      key,
      body: { name, type: 'postgresql', connection: { host: 'h', database: 'd', username: 'u' }, monitoring: { interval_seconds: 10 } },
    });
    return response.body.id as string;
  };
  const unreachableAlerts = async (databaseId: string) =>
    ((await server.request('GET', `/v1/alerts?database_id=${databaseId}&status=all`, { key })).body.data as { metric: string; status: string }[])
      .filter((alert) => alert.metric === 'reachable')
      .map((alert) => alert.status);
  const status = async (databaseId: string) => (await server.request('GET', `/v1/databases/${databaseId}`, { key })).body.status as string;
  /** The timer's evaluation (every 15 s in the server) from `fromMs` to `toMs`. */
  const timer = (fromMs: number, toMs: number) => {
    for (let at = fromMs; at <= toMs; at += 15 * second) server.services.alerting.evaluateAll(new Date(at));
  };
  const healthy = Array.from({ length: 18 }, (): Overrides => ({}));

  for (const silenceSeconds of [180, 400]) {
    await t.test(`after ${silenceSeconds} s of silence: fired after two minutes unreachable, resolved by the first sample back`, async (t) => {
      const id = await createDatabase(`silent-${silenceSeconds}`);
      const lastMs = ingest(server, id, server.clock.now.getTime(), ...healthy);
      // Unreachable from two intervals after the last sample (when samples count as stopped).
      server.services.alerting.evaluateAll(new Date(lastMs + 139 * second));
      t.same(await unreachableAlerts(id), [], 'unreachable for 119 s');
      server.services.alerting.evaluateAll(new Date(lastMs + 141 * second));
      t.same(await unreachableAlerts(id), ['active'], 'unreachable for 121 s');
      timer(lastMs + 141 * second, lastMs + silenceSeconds * second);
      t.equal(await status(id), 'unreachable');

      ingest(server, id, lastMs + silenceSeconds * second, {});
      t.same(await unreachableAlerts(id), ['resolved'], 'one reachable sample resolves it');
      t.equal(await status(id), 'healthy');
      server.clock.now = new Date(lastMs + (silenceSeconds + 10) * second);
    });
  }

  await t.test('failed collections for three minutes: resolved by the first successful one', async (t) => {
    const id = await createDatabase('refusing');
    const startMs = server.clock.now.getTime();
    const lastMs = ingest(server, id, startMs, ...Array.from({ length: 18 }, () => down));
    t.same(await unreachableAlerts(id), ['active'], 'fired on the batch');
    ingest(server, id, lastMs + 10 * second, {});
    t.same(await unreachableAlerts(id), ['resolved']);
    t.equal(await status(id), 'healthy');
  });

  await t.test('silence shorter than the hold fires nothing', async (t) => {
    const id = await createDatabase('blip');
    const lastMs = ingest(server, id, server.clock.now.getTime(), ...healthy);
    timer(lastMs + 15 * second, lastMs + 135 * second);
    ingest(server, id, lastMs + 135 * second, {});
    t.same(await unreachableAlerts(id), []);
  });
});
