// Where the server's time goes while it ingests (#14 goal 4): a V8 CPU profile (from
// `bench/fleet-ingest.js --cpu-prof DIR`) summed by what each sample was doing.
//
//   node bench/ingest-profile.js FILE.cpuprofile [--skip 45] [--tail 5]
//
// Only the samples from `--skip` seconds after the profile's start to `--tail` seconds before its end
// count: the start-up and the warm-up (the first sight of every statement) left out. A sample goes to
// the category of the innermost frame on its stack that names one (below); time SQLite spends in
// BEGIN and COMMIT themselves (the transaction wrapper's own time) is its own category. V8 samples
// the main thread's wall clock: a call blocked in write() or fsync() counts as busy.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { out } from './output.js';

const { values, positionals } = parseArgs({
  options: { skip: { type: 'string', default: '45' }, tail: { type: 'string', default: '5' } },
  allowPositionals: true,
  strict: true,
});
if (positionals.length !== 1) throw new TypeError('usage: node bench/ingest-profile.js FILE.cpuprofile [--skip S] [--tail S]');

/** Category, and the "function url" of a frame that puts a sample in it. */
const categories = [
  ['statement keys', /^(#statementKey|queryIdOf) /],
  ['statement interval start (lastReachedBefore)', /^lastReachedBefore /],
  ['statement intervals insert', /^recordInterval .*queries-repository/],
  ['samples insert', /^(insert .*samples-repository|#sampleValues )/],
  ['latest snapshot and database status', /^(#storeLatest|upsertLatest|recordCollection) /],
  ['database lookup', /^findAnyOrg /],
  ['batch id', /^(batchSeen|markBatch) /],
  ['alert evaluation (of the batch)', /^evaluateDatabases /],
  ['optimizations', /^measureAfter /],
  ['spool report', /^recordSpool /],
  ['ingest, the rest', /ingest-service/],
  ['rollup job', /rollup-job/],
  ['other background jobs', /job-scheduler|steps-within/],
  ['agent identify', /^identify .*agents-service/],
  ['authentication', /^authenticate /],
  ['body read and JSON parse', /co-body|raw-body|bourne|^requireObject |inflate|zlib/],
  ['body validation', /^validate\d|compiled-body/],
  ['WAL fsync (off the loop: its JS side)', /fsync/],
  ['HTTP and middleware', /koa|_http|http-server|app\.js|access-log|request-id|node:net|stream/],
  ['garbage collector', /^\(garbage collector\)/],
  ['idle', /^\(idle\)/],
];

const profile = JSON.parse(readFileSync(positionals[0], 'utf8'));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parents = new Map(profile.nodes.flatMap((node) => (node.children ?? []).map((child) => [child, node.id])));
const frameOf = (node) => `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url}`;
const categoryById = new Map();

/** The category of the innermost frame, from `id` outwards, that names one. */
function categoryOf(id) {
  let category = categoryById.get(id);
  if (category !== undefined) return category;
  const frame = frameOf(nodes.get(id));
  category = categories.find(([, pattern]) => pattern.test(frame))?.[0] ?? (parents.has(id) ? categoryOf(parents.get(id)) : 'other');
  categoryById.set(id, category);
  return category;
}

const from = profile.startTime + Number(values.skip) * 1e6;
const to = profile.endTime - Number(values.tail) * 1e6;
const totals = new Map();
let windowUs = 0;
for (let i = 0, at = profile.startTime; i < profile.samples.length; i++) {
  at += profile.timeDeltas[i];
  const tookUs = profile.timeDeltas[i + 1] ?? 0;
  if (at < from || at > to) continue;
  const id = profile.samples[i];
  const category = frameOf(nodes.get(id)).startsWith('sqliteTransaction ') ? 'BEGIN and COMMIT (the transaction wrapper itself)' : categoryOf(id);
  totals.set(category, (totals.get(category) ?? 0) + tookUs);
  windowUs += tookUs;
}
out(`${positionals[0]}: ${(windowUs / 1e6).toFixed(1)} s of main-thread samples, from ${values.skip} s to ${values.tail} s before the end`);
for (const [category, us] of [...totals].sort((a, b) => b[1] - a[1])) {
  out(`${(us / 1000).toFixed(0).padStart(8)} ms ${((100 * us) / windowUs).toFixed(1).padStart(5)} %  ${category}`);
}
