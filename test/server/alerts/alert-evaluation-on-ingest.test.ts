import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { databaseFileName } from '../../../server/state-dir.js';
import { makeSnapshot } from '../../helpers/snapshot-factory.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { createTenant, startTestServer, type TestServer } from '../../helpers/test-server.js';

// Ingest judges only the rules that can act on what a batch brought (alert-evaluation-service.ts):
// each case here is one where a rule skipped wrongly would miss a firing or a resolution.

type Overrides = Parameters<typeof makeSnapshot>[1];
let batchNumber = 0;

/** One batch of snapshots of one database, 10 s apart from the server's clock on, received 2 s after the last; the clock ends 10 s after it. */
function ingest(server: TestServer, databaseId: string, ...snapshots: Overrides[]) {
  const startMs = server.clock.now.getTime();
  const samples = snapshots.map((overrides, i) => ({ database_id: databaseId, snapshot: makeSnapshot(new Date(startMs + i * 10_000), overrides) }));
  const lastMs = startMs + (snapshots.length - 1) * 10_000;
  server.services.ingest.ingest({ kind: 'embedded' }, { batch_id: `on-ingest-${++batchNumber}`, samples }, new Date(lastMs + 2_000));
  server.clock.now = new Date(lastMs + 10_000);
}

const down: Overrides = { reachable: false, error: 'connect ECONNREFUSED' };
const p99 = (value: number | null): Overrides => ({ metrics: { latency: { avg_query_time_ms: 1, p95_query_time_ms: 2, p99_query_time_ms: value, source: 'estimate' } } });
const cpu = (value: number): Overrides => ({ metrics: { cpu_usage: value } });

t.test('alert evaluation on ingest', async (t) => {
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
  const createRule = async (body: Record<string, unknown>) => {
    const response = await server.request('POST', '/v1/alerts/rules', { key, body: { severity: 'warning', duration_seconds: 0, ...body } });
    t.equal(response.status, 201, response.text);
    return response.body.id as string;
  };
  /** The active alerts of a database, as `metric by rule name`. */
  const active = async (databaseId: string) =>
    ((await server.request('GET', `/v1/alerts?database_id=${databaseId}&status=active`, { key })).body.data as { metric: string; message: string }[])
      .map((alert) => `${alert.metric} by ${alert.message.split(':')[0]}`)
      .sort();
  const status = async (databaseId: string) => (await server.request('GET', `/v1/databases/${databaseId}`, { key })).body.status as string;

  await t.test('an unreachable alert with no hold resolves on the first reachable sample', async (t) => {
    const id = await createDatabase('comes-back');
    await createRule({ name: 'down now', database_id: id, metric: 'reachable', operator: '==', threshold: 0, severity: 'critical' });
    await createRule({ name: 'unreachable', database_id: id, metric: 'status', operator: '==', threshold: 'unreachable', severity: 'info' });
    ingest(server, id, down);
    t.same(await active(id), ['reachable by down now', 'status by unreachable'], 'a failed collection fires both at once');
    t.equal(await status(id), 'unreachable');
    ingest(server, id, {});
    t.same(await active(id), [], 'one reachable sample resolves both');
    t.equal(await status(id), 'healthy');
  });

  await t.test('a rule on a metric absent from a sample is judged again once the metric is back', async (t) => {
    const id = await createDatabase('latency-gaps');
    await createRule({ name: 'slow', database_id: id, metric: 'latency.p99_query_time_ms', operator: '>', threshold: 50, duration_seconds: 10 });
    ingest(server, id, p99(80), p99(null));
    t.same(await active(id), [], 'unknown in the newest sample: nothing fires');
    ingest(server, id, p99(80));
    t.same(await active(id), [], 'a run of one sample spans no 10 s');
    ingest(server, id, p99(90));
    t.same(await active(id), ['latency.p99_query_time_ms by slow'], 'present in two samples 10 s apart: it fires');
    ingest(server, id, p99(null), p99(null));
    t.same(await active(id), ['latency.p99_query_time_ms by slow'], 'absent: it neither fires again nor resolves');
    ingest(server, id, p99(10), p99(10));
    t.same(await active(id), [], 'back and clear on two samples: it resolves');
  });

  await t.test('a breach earlier in a batch than its newest sample fires nothing; one in the newest does', async (t) => {
    const id = await createDatabase('one-batch');
    await createRule({ name: 'hot', database_id: id, metric: 'cpu_usage', operator: '>', threshold: 90 });
    ingest(server, id, cpu(95), cpu(20));
    t.same(await active(id), []);
    ingest(server, id, cpu(20), cpu(95));
    t.same(await active(id), ['cpu_usage by hot']);
  });

  await t.test('a status rule fires on a status change, and on its hold spanned without one', async (t) => {
    const id = await createDatabase('status-watch');
    await createRule({ name: 'hot', database_id: id, metric: 'cpu_usage', operator: '>', threshold: 90 });
    await createRule({ name: 'warned at once', database_id: id, metric: 'status', operator: '==', threshold: 'warning', severity: 'info' });
    await createRule({ name: 'warned 30 s', database_id: id, metric: 'status', operator: '==', threshold: 'warning', duration_seconds: 30, severity: 'info' });
    ingest(server, id, cpu(10));
    t.same(await active(id), []);
    ingest(server, id, cpu(95));
    t.same(await active(id), ['cpu_usage by hot', 'status by warned at once'], "the metric rule's alert changes the status in the same batch");
    ingest(server, id, cpu(96), cpu(97), cpu(97));
    t.same(await active(id), ['cpu_usage by hot', 'status by warned at once'], 'a warning run of 22 s');
    ingest(server, id, cpu(97));
    t.same(await active(id), ['cpu_usage by hot', 'status by warned 30 s', 'status by warned at once'], 'of 32 s, in a batch that changed no status');
    ingest(server, id, cpu(10), cpu(10));
    t.same(await active(id), ['status by warned 30 s', 'status by warned at once'], 'the metric alert resolves; those samples still saw it active');
    ingest(server, id, cpu(10));
    t.same(await active(id), ['status by warned 30 s'], 'healthy at a sample and now: the rule with no hold resolves');
    ingest(server, id, cpu(10), cpu(10), cpu(10));
    t.same(await active(id), [], 'and the other once healthy for 30 s');
  });

  // The stock rule "Database unreachable for 2 minutes" as Prometheus's `up == 0` with `for: 2m`: it fires once
  // the database has been unreachable for its hold and resolves when it answers again, whatever the silence or
  // the failures before lasted (the hold delays firing only).
  const unreachable = 'reachable by Database unreachable for 2 minutes';
  /** The timer's evaluation (every 15 s in the server) from `fromMs` to `toMs`. */
  const timer = (fromMs: number, toMs: number) => {
    for (let at = fromMs; at <= toMs; at += 15_000) server.services.alerting.evaluateAll(new Date(at));
  };
  const healthy = Array.from({ length: 18 }, (): Overrides => ({}));
  for (const silenceSeconds of [180, 400]) {
    await t.test(`after ${silenceSeconds} s of silence: the stock unreachable alert fired after two minutes, resolved by the first sample back`, async (t) => {
      const id = await createDatabase(`silent-${silenceSeconds}`);
      ingest(server, id, ...healthy);
      const lastMs = server.clock.now.getTime() - 10_000;
      // Unreachable from two intervals after the last sample (when samples count as stopped).
      server.services.alerting.evaluateAll(new Date(lastMs + 139_000));
      t.same(await active(id), [], 'unreachable for 119 s');
      server.services.alerting.evaluateAll(new Date(lastMs + 141_000));
      t.same(await active(id), [unreachable], 'unreachable for 121 s');
      timer(lastMs + 141_000, lastMs + silenceSeconds * 1000);
      server.clock.now = new Date(lastMs + silenceSeconds * 1000);
      ingest(server, id, {});
      t.same(await active(id), [], 'one reachable sample resolves it');
      t.equal(await status(id), 'healthy');
    });
  }

  await t.test('failed collections for three minutes: the stock unreachable alert resolves on the first successful one', async (t) => {
    const id = await createDatabase('refusing');
    ingest(server, id, ...Array.from({ length: 18 }, () => down));
    t.same(await active(id), [unreachable], 'fired on the batch');
    ingest(server, id, {});
    t.same(await active(id), []);
    t.equal(await status(id), 'healthy');
  });

  await t.test('a silence shorter than its hold fires no unreachable alert', async (t) => {
    const id = await createDatabase('blip');
    ingest(server, id, ...healthy);
    const lastMs = server.clock.now.getTime() - 10_000;
    timer(lastMs + 15_000, lastMs + 135_000);
    server.clock.now = new Date(lastMs + 135_000);
    ingest(server, id, {});
    t.same(await active(id), []);
  });

  // Prometheus's `for`: the condition holds at every evaluation through the hold, and a silence (no data) breaks it.
  /** The server's clock `seconds` on, with the timer run through the silence. */
  const silence = (seconds: number) => {
    const fromMs = server.clock.now.getTime();
    timer(fromMs, fromMs + seconds * 1000);
    server.clock.now = new Date(fromMs + seconds * 1000);
  };

  await t.test('a hold on a metric is not bridged by a silence: it counts again from the first sample back', async (t) => {
    const id = await createDatabase('hot-then-silent');
    await createRule({ name: 'hot 60 s', database_id: id, metric: 'cpu_usage', operator: '>', threshold: 90, duration_seconds: 60 });
    ingest(server, id, cpu(95), cpu(95), cpu(95), cpu(95));
    silence(40);
    ingest(server, id, cpu(95));
    t.same(await active(id), [], 'hot before and after 50 s of silence: no fire on the first sample back');
    ingest(server, id, cpu(95), cpu(95), cpu(95), cpu(95), cpu(95));
    t.same(await active(id), [], 'hot for 50 s since');
    ingest(server, id, cpu(95));
    t.same(await active(id), ['cpu_usage by hot 60 s'], 'hot for 60 s since: it fires');
    ingest(server, id, cpu(10), cpu(10), cpu(10), cpu(10));
    silence(40);
    ingest(server, id, cpu(10), cpu(10), cpu(10), cpu(10), cpu(10), cpu(10));
    t.same(await active(id), ['cpu_usage by hot 60 s'], 'clear before and for 50 s after a silence: still active');
    ingest(server, id, cpu(10));
    t.same(await active(id), [], 'clear for 60 s since: it resolves');
  });

  await t.test('a status rule with a hold is not bridged by a silence either, to fire or to resolve', async (t) => {
    const id = await createDatabase('warned-then-silent');
    await createRule({ name: 'hot', database_id: id, metric: 'cpu_usage', operator: '>', threshold: 90 });
    await createRule({ name: 'warned 60 s', database_id: id, metric: 'status', operator: '==', threshold: 'warning', duration_seconds: 60, severity: 'info' });
    await createRule({ name: 'unreachable 30 s', database_id: id, metric: 'status', operator: '==', threshold: 'unreachable', duration_seconds: 30, severity: 'info' });
    ingest(server, id, cpu(95));
    ingest(server, id, cpu(95), cpu(95), cpu(95));
    t.same(await active(id), ['cpu_usage by hot'], 'warning for 30 s');
    silence(50);
    t.same(await active(id), ['cpu_usage by hot', 'status by unreachable 30 s'], 'silent for 35 s past due: unreachable for its hold');
    ingest(server, id, cpu(95));
    t.same(await active(id), ['cpu_usage by hot', 'status by unreachable 30 s'], 'warning on both sides of the silence: neither fired nor cleared across it');
    ingest(server, id, cpu(95), cpu(95));
    ingest(server, id, cpu(95));
    t.same(await active(id), ['cpu_usage by hot'], 'back for 32 s: the unreachable alert resolves');
    ingest(server, id, cpu(95), cpu(95), cpu(95));
    t.same(await active(id), ['cpu_usage by hot', 'status by warned 60 s'], 'warning for 62 s since the silence: it fires');
  });

  await t.test('a rule changed by another connection is seen by the next batch', async (t) => {
    const id = await createDatabase('rules-elsewhere');
    const other = await createDatabase('not-watched');
    ingest(server, id, cpu(50));
    ingest(server, other, cpu(50));
    const cli = new Database(join(server.stateDir, databaseFileName));
    t.teardown(() => cli.close());
    const rule = await createRule({ name: 'warm', database_id: id, metric: 'cpu_usage', operator: '>', threshold: 90, enabled: false });
    cli.prepare("UPDATE alert_rules SET enabled = 1, threshold = 40, updated_at = '2026-11-23T09:00:00Z' WHERE id = ?").run(rule);
    ingest(server, id, cpu(50));
    ingest(server, other, cpu(50));
    t.same(await active(id), ['cpu_usage by warm'], 'enabled elsewhere: it fires');
    t.same(await active(other), [], 'only on its own database');
    cli.prepare('DELETE FROM alert_rules WHERE id = ?').run(rule);
    ingest(server, id, cpu(50));
    t.same(await active(id), [], 'deleted elsewhere: its alert resolves');
  });
});

t.test("a gap in the samples while the server itself was down breaks a hold like any silence", async (t) => {
  const stateDir = tempDir(t, 'dbmon-alerts-restart-');
  const before = await startTestServer({ stateDir, now: new Date('2026-11-23T08:00:00Z') });
  const { key } = createTenant(before.services, before.clock.now);
  const created = await before.request('POST', '/v1/databases', {
    key,
    body: { name: 'down-with-the-server', type: 'postgresql', connection: { host: 'h', database: 'd', username: 'u' }, monitoring: { interval_seconds: 10 } },
  });
  const id = created.body.id as string;
  await before.request('POST', '/v1/alerts/rules', {
    key,
    body: { name: 'hot 5 min', database_id: id, metric: 'cpu_usage', operator: '>', threshold: 90, duration_seconds: 300, severity: 'warning' },
  });
  ingest(before, id, ...Array.from({ length: 13 }, () => cpu(95)));
  const lastMs = before.clock.now.getTime() - 10_000;
  await before.close();

  // Down for four minutes; the new process starts 10 s before its first sample, which spans more than the hold from the first hot one.
  const after = await startTestServer({ stateDir, now: new Date(lastMs + 240_000) });
  t.teardown(after.close);
  const active = async () => ((await after.request('GET', `/v1/alerts?database_id=${id}&status=active`, { key })).body.data as unknown[]).length;
  after.clock.now = new Date(lastMs + 250_000);
  ingest(after, id, cpu(95));
  t.equal(await active(), 0, 'hot for 2 min before the gap and on the first sample after it: nothing fires');
  ingest(after, id, ...Array.from({ length: 29 }, () => cpu(95)));
  t.equal(await active(), 0, 'hot for 4 min 50 s since the gap');
  ingest(after, id, cpu(95));
  t.equal(await active(), 1, 'hot for 5 min since the gap: it fires');
});
