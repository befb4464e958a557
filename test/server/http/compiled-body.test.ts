import t from 'tap';
import { metricCatalog } from '../../../common/metric-catalog.js';
import { sampleBatchSchema } from '../../../common/agent-protocol/sample-batch.js';
import { InvalidRequestError } from '../../../server/errors.js';
import { compiledBodyParser } from '../../../server/http/compiled-body.js';
import { parseInput } from '../../../server/http/validate.js';
import { makeSnapshot } from '../../helpers/snapshot-factory.js';

const sampleBatchBody = sampleBatchSchema(metricCatalog);
const parse = compiledBodyParser(sampleBatchBody);

const validBatch = () => ({
  batch_id: 'compiled-body-0001',
  spool_dropped_total: 0,
  samples: [
    {
      database_id: 'db_1',
      snapshot: {
        ...makeSnapshot(new Date('2026-11-22T12:00:00Z')),
        error: 'none',
        statements: [{ query_id_source: '42', query: 'SELECT 1', calls: 3, total_time_ms: 1.5, max_time_ms: null, rows: 3 }],
      },
    },
  ],
});

/** What each parser makes of an input: the value, or the contract error it throws. */
const outcome = (run: () => unknown) => {
  try {
    return { ok: true, value: run() };
  } catch (error) {
    if (!(error instanceof InvalidRequestError)) throw error;
    return { ok: false, code: error.code, param: error.param, message: error.message };
  }
};

/** Every path to a leaf (and to each object and array) of a JSON value. */
function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (typeof value !== 'object' || value === null) return [prefix];
  const keys: (string | number)[] = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  return [prefix, ...keys.flatMap((key) => paths((value as Record<string | number, unknown>)[key], [...prefix, key]))];
}

function withValue(path: (string | number)[], value: unknown, remove = false): unknown {
  const copy = structuredClone(validBatch()) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = path.at(-1)!;
  if (remove) delete node[last];
  else node[last] = value;
  return copy;
}

const badValues: unknown[] = [
  null, -1, 101, 1.5, 2 ** 53, '', 'x'.repeat(201), 'x'.repeat(2001), true, {}, [], 'not-a-time',
  '2026-02-30T00:00:00Z', '2026-11-22 12:00:00Z', '2026-11-22T12:00:00', '2026-11-22T12:00:00+01:00',
  { unexpected: 1 }, [{}], { ['k'.repeat(201)]: 1 }, '🙂'.repeat(201), '🙂'.repeat(2001),
];

t.test('a valid batch comes back as it came', async (t) => {
  const batch = validBatch();
  t.equal(parse(batch), batch);
  t.same(parse(batch), sampleBatchBody.parse(batch));
});

t.test('the compiled check accepts exactly what zod accepts, and refuses with zod\'s words', async (t) => {
  const cases: unknown[] = [];
  for (const path of paths(validBatch()).filter((path) => path.length > 0)) {
    cases.push(withValue(path, undefined, true));
    for (const value of badValues) cases.push(withValue(path, value));
  }
  for (const extra of [[], ['samples', 0], ['samples', 0, 'snapshot'], ['samples', 0, 'snapshot', 'metrics']]) {
    cases.push(withValue([...extra, 'unexpected'], 1));
  }
  cases.push({ ...validBatch(), samples: [] }, { ...validBatch(), samples: Array(501).fill(validBatch().samples[0]) }, [], null, 'text');
  let refused = 0;
  for (const input of cases) {
    const compiled = outcome(() => parse(input));
    const reference = outcome(() => parseInput(sampleBatchBody, input));
    if (compiled.ok !== reference.ok) t.fail(`disagree on ${JSON.stringify(input).slice(0, 300)}: compiled ${compiled.ok}, zod ${reference.ok}`);
    if (!compiled.ok) {
      refused++;
      t.same(compiled, reference);
    }
  }
  t.ok(cases.length > 500, `${cases.length} cases`);
  const astral = withValue(['samples', 0, 'snapshot', 'error'], '🙂'.repeat(2000));
  t.equal(outcome(() => parse(astral)).ok, true, 'both count characters, not UTF-16 units: 2000 emoji fit in 2000');
  t.ok(refused > 300, `${refused} of them refused`);
});
