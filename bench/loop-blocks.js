// What held the server's event loop (#14 goal 2): for each block the event-loop probe saw
// (bench/event-loop-probe.js: over 40 ms, with its span on the monotonic clock), what the V8 CPU
// profile of the same run sampled within it, by category (profile-categories.js) and by the
// functions on top of the stack.
//
//   node bench/fleet-live.js --cpu-prof DIR && node bench/loop-blocks.js DIR/*.cpuprofile DIR/event-loop-blocks.json [--frames 4]
//
// A profile's timestamps and the probe's spans are both CLOCK_MONOTONIC microseconds (V8's TimeTicks
// and process.hrtime on Linux). Idle samples within a block are time the loop spent waiting for I/O
// between callbacks; a block is the time between two runs of the probe's timer, so it may hold
// several callbacks.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { out } from './output.js';
import { sampleCategories } from './profile-categories.js';

const { values, positionals } = parseArgs({ options: { frames: { type: 'string', default: '4' } }, allowPositionals: true, strict: true });
if (positionals.length !== 2) throw new TypeError('usage: node bench/loop-blocks.js FILE.cpuprofile BLOCKS.json [--frames N]');

const profile = JSON.parse(readFileSync(positionals[0], 'utf8'));
const { blocks } = JSON.parse(readFileSync(positionals[1], 'utf8'));
const categoryOf = sampleCategories(profile);
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const frameOf = (id) => {
  const { functionName, url, lineNumber } = nodes.get(id).callFrame;
  return `${functionName || '(anonymous)'} ${url.replace(/^.*\/(dist|node_modules)\//, '')}:${lineNumber + 1}`;
};

const times = new Float64Array(profile.samples.length);
for (let i = 0, at = profile.startTime; i < profile.samples.length; i++) times[i] = at += profile.timeDeltas[i];

const ms = (us) => (us / 1000).toFixed(0);
out(`${blocks.length} blocks over 40 ms, longest first; in each: sampled time by category, then the top frames`);
for (const block of [...blocks].sort((a, b) => b.ms - a.ms)) {
  const byCategory = new Map();
  const byFrame = new Map();
  let sampledUs = 0;
  for (let i = 0; i < times.length; i++) {
    if (times[i] < block.fromUs || times[i] > block.toUs) continue;
    const tookUs = (times[i + 1] ?? times[i]) - times[i];
    const [category, frame] = [categoryOf(profile.samples[i]), frameOf(profile.samples[i])];
    byCategory.set(category, (byCategory.get(category) ?? 0) + tookUs);
    byFrame.set(frame, (byFrame.get(frame) ?? 0) + tookUs);
    sampledUs += tookUs;
  }
  const top = (map, n) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n).map(([name, us]) => `${name} ${ms(us)}`).join(', ');
  out(`${block.ms.toFixed(1).padStart(6)} ms (cpu ${block.cpuMs.toFixed(0)}, gc ${block.gcMs.toFixed(0)}; ${ms(sampledUs)} ms sampled): ${top(byCategory, 8)}`);
  out(`         ${top(byFrame, Number(values.frames))}`);
}
