import t from 'tap';
import { evaluateAlerts, operators, rulesThatCanAct, type AlertAction, type EvaluationInput, type RuleSpec } from '../../../server/alerts/alert-evaluator.js';
import { deriveDatabaseStatus, reachabilityOf } from '../../../server/databases/database-status.js';
import type { SampleRow } from '../../../server/metrics/sample-row.js';
import { metricCatalog, type MetricColumns } from '../../../common/metric-catalog.js';

const second = 1000;
const t0 = Date.parse('2026-11-22T10:00:00Z');

function sample(ts: number, active: number | null, overrides: Partial<SampleRow> = {}): SampleRow {
  return {
    ...(Object.fromEntries(metricCatalog.map(({ column }) => [column, null])) as MetricColumns),
    database_id: 'db_x',
    ts,
    reachable: 1,
    cpu_usage: 10,
    memory_usage: 10,
    disk_usage: 10,
    connections_active: active,
    connections_idle: 0,
    connections_total: active,
    connections_max: 100,
    queries_per_second: 1,
    transactions_per_second: 1,
    avg_query_time_ms: 1,
    p95_query_time_ms: 1,
    p99_query_time_ms: 1,
    latency_source: 'estimate',
    database_size_bytes: 1,
    ...overrides,
  };
}

const rule = (overrides: Partial<RuleSpec> = {}): RuleSpec => ({
  id: 'rule_a',
  name: 'busy',
  metric: 'connections.active',
  operator: '>',
  threshold: 10,
  duration_seconds: 60,
  severity: 'warning',
  ...overrides,
});

/** Samples every 10 s from t0 with these values. */
const series = (values: readonly (number | null)[], stepMs = 10 * second) => values.map((value, i) => sample(t0 + i * stepMs, value));

function input(overrides: Partial<EvaluationInput>): EvaluationInput {
  const samples = overrides.samples ?? [];
  const last = samples.at(-1);
  return {
    nowMs: last?.ts ?? t0,
    monitoringEnabled: true,
    intervalMs: 10 * second,
    monitoringSinceMs: t0 - 3600 * second,
    lastSample: last && { ts: last.ts, reachable: last.reachable },
    samples,
    rules: [rule()],
    openAlerts: [],
    suppressions: [],
    ...overrides,
  };
}

const kinds = (actions: AlertAction[]) => actions.map((action) => action.kind);

/**
 * Feeds samples one by one, evaluating after each like the ingest hook does, applying the
 * actions to the open alerts and suppressions like the service does. Returns the fired alerts.
 */
function simulate(values: readonly (number | null)[], rules: RuleSpec[], stepMs = 10 * second) {
  const all = series(values, stepMs);
  const open: { id: string; rule_id: string }[] = [];
  const fired: { at: number; value: number | null }[] = [];
  const resolved: number[] = [];
  for (let i = 0; i < all.length; i++) {
    const visible = all.slice(0, i + 1);
    for (const action of evaluateAlerts(input({ samples: visible, rules, openAlerts: [...open], intervalMs: stepMs }))) {
      if (action.kind === 'fire') {
        open.push({ id: `alert_${fired.length}`, rule_id: action.rule.id });
        fired.push({ at: visible.at(-1)!.ts, value: action.value });
      } else if (action.kind === 'resolve') {
        open.splice(open.findIndex((alert) => alert.id === action.alertId), 1);
        resolved.push(visible.at(-1)!.ts);
      }
    }
  }
  return { fired, resolved, open };
}

t.test('the condition must hold for duration_seconds, measured on samples', async (t) => {
  const values = [1, 12, 12, 12, 12, 12, 12];
  t.same(evaluateAlerts(input({ samples: series(values) })), [], 'the run spans 50 s of the 60 s hold');
  const actions = evaluateAlerts(input({ samples: series([...values, 12]) }));
  t.same(kinds(actions), ['fire'], 'the 60 s hold is reached');
  t.match(actions[0], { kind: 'fire', value: 12, sinceMs: t0 + 10 * second });
  t.same(
    evaluateAlerts(input({ samples: series([12, 12, 12, 12, 1, 12, 12, 12]) })),
    [],
    'a dip restarts the hold',
  );
  t.same(kinds(evaluateAlerts(input({ samples: series([12]), rules: [rule({ duration_seconds: 0 })] }))), ['fire'], 'duration 0 fires on the first sample');
  t.same(evaluateAlerts(input({ samples: series([12, 12, 12, 12, 12, 12, 12, 10]) })), [], '10 is not > 10');
  t.same(kinds(evaluateAlerts(input({ samples: series([10, 10]), rules: [rule({ operator: '>=', duration_seconds: 10 })] }))), ['fire']);
  t.same(kinds(evaluateAlerts(input({ samples: series([3]), rules: [rule({ operator: '<', threshold: 5, duration_seconds: 0 })] }))), ['fire']);
  t.same(kinds(evaluateAlerts(input({ samples: series([5]), rules: [rule({ operator: '==', threshold: 5, duration_seconds: 0 })] }))), ['fire']);
  t.same(kinds(evaluateAlerts(input({ samples: series([4]), rules: [rule({ operator: '!=', threshold: 5, duration_seconds: 0 })] }))), ['fire']);
});

t.test('a silence of more than two intervals between samples breaks a run', async (t) => {
  const at = (...points: [number, number][]) => points.map(([seconds, value]) => sample(t0 + seconds * second, value));
  const before = at([0, 12], [10, 12], [20, 12]);
  t.same(evaluateAlerts(input({ samples: [...before, ...at([260, 12])] })), [], 'the first sample after 240 s of silence does not fire a 60 s hold');
  t.same(evaluateAlerts(input({ samples: [...before, ...at([260, 12], [270, 12], [280, 12], [290, 12], [300, 12], [310, 12])] })), [], 'held for 50 s since');
  const since = evaluateAlerts(input({ samples: [...before, ...at([260, 12], [270, 12], [280, 12], [290, 12], [300, 12], [310, 12], [320, 12])] }));
  t.match(since, [{ kind: 'fire', sinceMs: t0 + 260 * second }], 'held for 60 s after the silence: it fires, held since the first sample back');
  t.match(
    evaluateAlerts(input({ samples: at([0, 12], [20, 12], [40, 12], [60, 12]) })),
    [{ kind: 'fire', sinceMs: t0 }],
    'samples two intervals apart are no silence',
  );
  t.same(evaluateAlerts(input({ samples: at([0, 12], [21, 12], [42, 12], [63, 12]) })), [], 'a little more than two intervals is');

  const open = [{ id: 'alert_1', rule_id: 'rule_a' }];
  const clearBefore = at([0, 1], [10, 1], [20, 1], [30, 1], [40, 1]);
  t.same(evaluateAlerts(input({ samples: [...clearBefore, ...at([90, 1], [100, 1])], openAlerts: open })), [], 'clear on both sides of a silence: not resolved across it');
  t.same(
    kinds(evaluateAlerts(input({ samples: [...clearBefore, ...at([90, 1], [100, 1], [110, 1], [120, 1], [130, 1], [140, 1], [150, 1])], openAlerts: open }))),
    ['resolve'],
    'clear for 60 s after it: resolved',
  );

  const serverStart = t0 + 200 * second;
  t.same(
    evaluateAlerts(input({ samples: [...before, ...at([210, 12])], monitoringSinceMs: serverStart })),
    [],
    'a gap between samples while the server was down breaks the run as well: judged on the samples, whatever its start',
  );
});

t.test('at most one active alert per rule and database', async (t) => {
  const samples = series([12, 12, 12, 12, 12, 12, 12, 12, 12]);
  t.same(evaluateAlerts(input({ samples, openAlerts: [{ id: 'alert_1', rule_id: 'rule_a' }] })), [], 'an open alert of the rule: nothing fires');
  const two = evaluateAlerts(input({ samples, rules: [rule(), rule({ id: 'rule_b' })], openAlerts: [{ id: 'alert_1', rule_id: 'rule_a' }] }));
  t.same(two.map((action) => action.kind === 'fire' && action.rule.id), ['rule_b'], 'another rule fires on its own');
  const run = simulate(Array.from({ length: 30 }, () => 50), [rule({ duration_seconds: 0 })]);
  t.equal(run.fired.length, 1, 'a condition that holds for a long time makes one alert');
});

t.test('hysteresis: resolving needs the value past the threshold by 5 % on two samples spanning the hold', async (t) => {
  const open = [{ id: 'alert_1', rule_id: 'rule_a' }];
  const hovering = series([12, 9.8, 9.9, 9.6, 9.7, 9.8, 9.9, 9.6, 9.9]);
  t.same(evaluateAlerts(input({ samples: hovering, openAlerts: open })), [], 'below 10 but above 9.5: still active');
  const cleared = series([12, 9, 9, 9, 9, 9, 9]);
  t.same(evaluateAlerts(input({ samples: cleared, openAlerts: open })), [], 'clear for 50 s of the 60 s hold');
  const resolved = evaluateAlerts(input({ samples: series([12, 9, 9, 9, 9, 9, 9, 9]), openAlerts: open }));
  t.same(resolved, [{ kind: 'resolve', alertId: 'alert_1', ruleId: 'rule_a', value: 9, reason: 'cleared' }]);
  const instant = rule({ duration_seconds: 0 });
  t.same(evaluateAlerts(input({ samples: series([12, 1]), rules: [instant], openAlerts: open })), [], 'one clear sample is not enough even with duration 0');
  t.same(kinds(evaluateAlerts(input({ samples: series([12, 1, 1]), rules: [instant], openAlerts: open }))), ['resolve'], 'two are');
  t.same(
    evaluateAlerts(input({ samples: series([12, 1, null]), rules: [instant], openAlerts: open })),
    [],
    'an unknown newest value neither resolves nor fires',
  );
});

t.test('flapping input around the threshold makes at most one alert', async (t) => {
  const hovering = Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? 10.2 : 9.8));
  for (const duration of [0, 10, 30]) {
    const run = simulate(hovering, [rule({ duration_seconds: duration })]);
    t.ok(run.fired.length <= 1, `hovering 9.8/10.2, duration ${duration}: ${run.fired.length} alert(s)`);
    t.equal(run.resolved.length, 0, 'and it never resolves while hovering');
  }
  const swinging = Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? 20 : 1));
  const run = simulate(swinging, [rule({ duration_seconds: 0 })]);
  t.equal(run.fired.length, 1, 'even a wide swing every sample never gives two clear samples in a row');
  const irregular = [11, 9, 11, 11, 9, 11, 9, 9.6, 11, 10.4, 11, 9.7, 11, 11, 9.4, 11];
  t.equal(simulate(irregular, [rule({ duration_seconds: 0 })]).fired.length, 1);
  t.equal(simulate(irregular, [rule({ duration_seconds: 20 })]).fired.length, 1, 'with a hold, it fires once the breach spans it (10.4, 11, 11 over 20 s)');
  t.equal(simulate(irregular, [rule({ duration_seconds: 30 })]).fired.length, 0, 'and never when no breach lasts that long');
  const settled = simulate([...Array.from({ length: 20 }, (_, i) => (i % 2 ? 12 : 8)), 1, 1, 1, 1, 1, 12], [rule({ duration_seconds: 0 })]);
  t.same([settled.fired.length, settled.resolved.length], [2, 1], 'a real recovery resolves, and a later breach is a new alert');
});

t.test('a manually resolved alert does not fire again until its condition has cleared once', async (t) => {
  const instant = rule({ duration_seconds: 0 });
  const resolvedAt = t0 + 25 * second;
  const suppressions = [{ rule_id: 'rule_a', since: resolvedAt }];
  const still = series([12, 12, 12, 12, 12, 12, 12, 12]);
  t.same(evaluateAlerts(input({ samples: still, rules: [instant], suppressions })), [], 'still above: quiet');
  const hovering = series([12, 12, 12, 12, 9.8, 12]);
  t.same(evaluateAlerts(input({ samples: hovering, rules: [instant], suppressions })), [], 'a dip inside the margin is no clearing');
  const clearedBefore = series([1, 1, 12, 12, 12, 12]);
  t.same(
    evaluateAlerts(input({ samples: clearedBefore, rules: [instant], suppressions })),
    [],
    'a clear sample from before the resolve does not count',
  );
  const clearedAfter = series([12, 12, 12, 12, 1, 12]);
  const actions = evaluateAlerts(input({ samples: clearedAfter, rules: [instant], suppressions }));
  t.same(kinds(actions), ['rearm', 'fire'], 'cleared once after the resolve: re-armed, and the new breach fires');
  const rearmedOnly = evaluateAlerts(input({ samples: series([12, 12, 12, 12, 1]), rules: [instant], suppressions }));
  t.same(kinds(rearmedOnly), ['rearm']);
});

t.test('reachable: failed collections and silence both count, from the moment samples were due', async (t) => {
  const unreachable = rule({ id: 'rule_u', metric: 'reachable', operator: '==', threshold: 0, duration_seconds: 120, severity: 'critical' });
  const interval = 60 * second;
  const down = (n: number) => Array.from({ length: n }, (_, i) => sample(t0 + i * interval, null, { reachable: 0 }));
  t.same(evaluateAlerts(input({ samples: down(2), rules: [unreachable], intervalMs: interval })), [], 'failing for 60 s');
  t.same(kinds(evaluateAlerts(input({ samples: down(3), rules: [unreachable], intervalMs: interval }))), ['fire'], 'failing for 120 s');

  const created = t0;
  const silent = (nowMs: number) =>
    evaluateAlerts(
      input({ samples: [], lastSample: undefined, nowMs, monitoringSinceMs: created, rules: [unreachable], intervalMs: interval }),
    );
  t.same(silent(created + 2 * interval), [], 'no sample yet, but none was missed');
  t.same(silent(created + 2 * interval + 119 * second), [], 'silent for 119 s past due');
  t.same(kinds(silent(created + 2 * interval + 120 * second)), ['fire'], 'silent for 120 s past due');

  const upThenSilent = [sample(t0, 5), sample(t0 + interval, 5)];
  const at = (nowMs: number) => evaluateAlerts(input({ samples: upThenSilent, nowMs, rules: [unreachable], intervalMs: interval }));
  t.same(at(t0 + 3 * interval + 119 * second), []);
  t.same(kinds(at(t0 + 3 * interval + 120 * second)), ['fire'], 'samples stopped: unreachable from two intervals after the last');

  const open = [{ id: 'alert_u', rule_id: 'rule_u' }];
  const back = [...down(3), sample(t0 + 3 * interval, 5)];
  t.same(kinds(evaluateAlerts(input({ samples: back, rules: [unreachable], intervalMs: interval, openAlerts: open }))), ['resolve'], 'back: its hold delays firing only');
  const stillSilent = evaluateAlerts(input({ samples: upThenSilent, nowMs: t0 + 10 * interval, rules: [unreachable], intervalMs: interval, openAlerts: open }));
  t.same(stillSilent, [], 'silent still: the reachable samples before the silence resolve nothing');

  const stale = evaluateAlerts(input({ samples: series([12, 12, 12, 12, 12, 12, 12, 12]), nowMs: t0 + 3600 * second }));
  t.same(stale, [], 'other metrics are unknown once samples are stale');
});

t.test('reachable with no hold: one reachable sample resolves its alert too', async (t) => {
  const instantDown = rule({ id: 'rule_u', metric: 'reachable', operator: '==', threshold: 0, duration_seconds: 0, severity: 'critical' });
  const open = [{ id: 'alert_u', rule_id: 'rule_u' }];
  const downThenUp = [sample(t0, null, { reachable: 0 }), sample(t0 + 10 * second, 5)];
  t.same(kinds(evaluateAlerts(input({ samples: downThenUp, rules: [instantDown], openAlerts: open }))), ['resolve']);
});

t.test('open alerts of a rule that went away, or of a paused database, resolve', async (t) => {
  const open = [{ id: 'alert_1', rule_id: 'rule_gone' }];
  t.same(evaluateAlerts(input({ samples: series([1]), openAlerts: open })), [
    { kind: 'resolve', alertId: 'alert_1', ruleId: 'rule_gone', value: null, reason: 'rule_gone' },
  ]);
  t.same(evaluateAlerts(input({ samples: series([50, 50, 50, 50, 50, 50, 50, 50]), monitoringEnabled: false, openAlerts: [{ id: 'alert_2', rule_id: 'rule_a' }] })), [
    { kind: 'resolve', alertId: 'alert_2', ruleId: 'rule_a', value: null, reason: 'monitoring_paused' },
  ]);
});

t.test('connections.used_pct is total over max', async (t) => {
  const ratio = rule({ metric: 'connections.used_pct', threshold: 90, duration_seconds: 0 });
  const nearlyFull = [sample(t0, 5, { connections_total: 91, connections_max: 100 })];
  t.same(kinds(evaluateAlerts(input({ samples: nearlyFull, rules: [ratio] }))), ['fire']);
  const unknownMax = [sample(t0, 5, { connections_total: 91, connections_max: null })];
  t.same(evaluateAlerts(input({ samples: unknownMax, rules: [ratio] })), [], 'no max, no ratio');
});

t.test('database status: one derivation with a fixed precedence', async (t) => {
  const derive = (monitoringEnabled: boolean, reachability: 'pending' | 'reachable' | 'unreachable', activeSeverities: ('info' | 'warning' | 'critical')[]) =>
    deriveDatabaseStatus({ monitoringEnabled, reachability, activeSeverities });
  t.equal(derive(false, 'unreachable', ['critical']), 'paused');
  t.equal(derive(true, 'unreachable', ['critical']), 'unreachable');
  t.equal(derive(true, 'reachable', ['warning', 'critical']), 'critical', 'critical wins');
  t.equal(derive(true, 'reachable', ['warning', 'info']), 'warning');
  t.equal(derive(true, 'reachable', ['info']), 'healthy', 'info alerts do not change the status');
  t.equal(derive(true, 'pending', []), 'pending');
  const base = { nowMs: t0, intervalMs: 60 * second, monitoringSinceMs: t0 - 60 * second };
  t.equal(reachabilityOf({ ...base, lastSample: undefined }), 'pending');
  t.equal(reachabilityOf({ ...base, monitoringSinceMs: t0 - 121 * second, lastSample: undefined }), 'unreachable', 'never sent one in two intervals');
  t.equal(reachabilityOf({ ...base, lastSample: { ts: t0 - 60 * second, reachable: 1 } }), 'reachable');
  t.equal(reachabilityOf({ ...base, lastSample: { ts: t0 - 10 * second, reachable: 0 } }), 'unreachable');
  t.equal(reachabilityOf({ ...base, monitoringSinceMs: 0, lastSample: { ts: t0 - 121 * second, reachable: 1 } }), 'unreachable', 'stale');
});

t.test('rulesThatCanAct, from the newest sample alone, leaves out only rules that would not act', async (t) => {
  const next = seeded(7);
  const pick = <T>(values: readonly T[]) => values[Math.floor(next() * values.length)]!;
  const metrics = ['connections.active', 'cpu_usage', 'reachable', 'status'] as const;
  let selected = 0;
  let acted = 0;
  const differing: number[] = [];
  for (let round = 0; round < 3000; round++) {
    const rules = Array.from({ length: 4 }, (_, i) =>
      rule({ id: `rule_${i}`, metric: pick(metrics), operator: pick(operators), threshold: pick([0, 1, 3, 10]), duration_seconds: pick([0, 10, 30]) }),
    );
    // Mostly one interval apart, sometimes after a silence of more than two.
    let ts = t0 - 10 * second;
    const samples = Array.from({ length: 1 + Math.floor(next() * 6) }, () =>
      sample((ts += pick([10, 10, 10, 30]) * second), pick([null, 1, 5, 10, 12]), { reachable: pick([0, 1, 1]), cpu_usage: pick([null, 0, 3, 10]) }),
    );
    const nowMs = samples.at(-1)!.ts + pick([0, 5, 25, 60]) * second;
    const statusPoints = samples.map((entry) => ({ ts: entry.ts, value: pick([0, 1, 3]) }));
    statusPoints.push({ ts: nowMs, value: pick([0, 1, 3]) });
    const full = input({
      samples,
      nowMs,
      rules,
      openAlerts: rules.filter(() => next() < 0.3).map((entry) => ({ id: `alert_${entry.id}`, rule_id: entry.id })),
      suppressions: rules.filter(() => next() < 0.15).map((entry) => ({ rule_id: entry.id, since: t0 + pick([0, 10, 20]) * second })),
      statusSeries: { points: statusPoints, endMs: nowMs },
    });
    const newestOnly = { ...full, samples: samples.slice(-1), statusSeries: { points: statusPoints.slice(-1), endMs: nowMs } };
    const acting = rulesThatCanAct(newestOnly);
    const actions = evaluateAlerts(full);
    if (JSON.stringify(evaluateAlerts({ ...full, rules: acting })) !== JSON.stringify(actions)) differing.push(round);
    selected += acting.length;
    acted += new Set(actions.flatMap((action) => (action.kind === 'fire' ? [action.rule.id] : [action.ruleId]))).size;
  }
  t.same(differing, [], 'the same actions in every round');
  t.ok(acted > 300 && selected < 3000 * 4 * 0.75, `rules that acted: ${acted}; selected: ${selected} of ${3000 * 4}`);
});

/** A deterministic stream of numbers in [0, 1). */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 4_294_967_296;
  };
}
