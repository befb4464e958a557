// Where the server's time goes while it ingests (#14 goal 4): a V8 CPU profile (from
// `bench/fleet-ingest.js --cpu-prof DIR`) summed by what each sample was doing.
//
//   node bench/ingest-profile.js FILE.cpuprofile [--skip 45] [--tail 5]
//
// Only the samples from `--skip` seconds after the profile's start to `--tail` seconds before its end
// count: the start-up and the warm-up (the first sight of every statement) left out. A sample goes to
// the category of the innermost frame on its stack that names one (profile-categories.js). V8 samples
// the main thread's wall clock: a call blocked in write() or fsync() counts as busy.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { out } from './output.js';
import { sampleCategories } from './profile-categories.js';

const { values, positionals } = parseArgs({
  options: { skip: { type: 'string', default: '45' }, tail: { type: 'string', default: '5' } },
  allowPositionals: true,
  strict: true,
});
if (positionals.length !== 1) throw new TypeError('usage: node bench/ingest-profile.js FILE.cpuprofile [--skip S] [--tail S]');

const profile = JSON.parse(readFileSync(positionals[0], 'utf8'));
const categoryOf = sampleCategories(profile);

const from = profile.startTime + Number(values.skip) * 1e6;
const to = profile.endTime - Number(values.tail) * 1e6;
const totals = new Map();
let windowUs = 0;
for (let i = 0, at = profile.startTime; i < profile.samples.length; i++) {
  at += profile.timeDeltas[i];
  const tookUs = profile.timeDeltas[i + 1] ?? 0;
  if (at < from || at > to) continue;
  const category = categoryOf(profile.samples[i]);
  totals.set(category, (totals.get(category) ?? 0) + tookUs);
  windowUs += tookUs;
}
out(`${positionals[0]}: ${(windowUs / 1e6).toFixed(1)} s of main-thread samples, from ${values.skip} s to ${values.tail} s before the end`);
for (const [category, us] of [...totals].sort((a, b) => b[1] - a[1])) {
  out(`${(us / 1000).toFixed(0).padStart(8)} ms ${((100 * us) / windowUs).toFixed(1).padStart(5)} %  ${category}`);
}
