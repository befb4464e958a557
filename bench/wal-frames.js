// How many pages a batch and a seal write (#14 goal 2): a commit writes each page its transaction
// dirtied into the WAL, and on a busy disk that write is what holds the event loop, more than the CPU.
//
//   npm run build && node bench/wal-frames.js [--root DIR] [--databases 200] [--days 1] [--batches 16] [--seals 30]
//
// On a copy of the cached fleet state (bench/fleet-state.js; removed afterwards), opened with
// `--root`'s code in this process, automatic checkpoints off: the WAL emptied (checkpoint TRUNCATE)
// before each measured step, and its frames counted after it. The steps: the fleet's agents' batches
// in turn (their databases' collections with 20 statements each, through the ingest service as the
// route calls it), the same without statements, and seal-job slices of one database-hour each.
import { cpSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentSamples, describeRun, fleetArgs, fleetState, openFleet, random } from './fleet-state.js';
import { integerFlag, out, percentile } from './output.js';

const flags = fleetArgs({ batches: { type: 'string', default: '16' }, seals: { type: 'string', default: '30' } });
const intervalMs = 10_000;
const walHeaderBytes = 32;
const frameHeaderBytes = 24;

const { dir, fleet } = await fleetState(flags);
const copy = mkdtempSync(join(tmpdir(), 'dbmon-bench-frames-'));
try {
  out(describeRun(flags));
  cpSync(dir, copy, { recursive: true });
  const firstTs = fleet.endMs + intervalMs;
  const { db, services } = await openFleet(flags.root, copy, new Date(firstTs));
  db.pragma('wal_autocheckpoint = 0');
  const pageSize = db.pragma('page_size', { simple: true });
  const walFile = join(copy, 'dbmon.db-wal');
  /** The frames `step` appends to an emptied WAL. */
  const framesOf = async (step) => {
    db.pragma('wal_checkpoint(TRUNCATE)');
    await step();
    return Math.max(0, (statSync(walFile).size - walHeaderBytes) / (pageSize + frameHeaderBytes));
  };
  const opened = new Date(firstTs);
  const agents = fleet.agents.map(({ key }, a) => services.agents.identify(services.apiKeys.authenticate(key, opened), { hostname: `agent-${a}`, version: 'bench' }, opened));
  const next = random(7);
  const batchFrames = async (b, withStatements) => {
    const a = b % fleet.agents.length;
    const ts = firstTs + Math.floor(b / fleet.agents.length) * intervalMs;
    const samples = agentSamples(fleet, a, ts, next, withStatements);
    const batch = { batch_id: `frames-${a}-${ts}`, samples };
    const source = { kind: 'agent', agent: agents[a] };
    const at = new Date(ts + 2_000);
    return framesOf(() => (services.ingest.ingestInSlices ? services.ingest.ingestInSlices(source, batch, at) : services.ingest.ingest(source, batch, at)));
  };
  const batches = integerFlag(flags, 'batches');
  const withStatements = [];
  for (let b = 0; b < batches; b++) withStatements.push(await batchFrames(b, true));
  const withoutStatements = [];
  for (let b = batches; b < 2 * batches; b++) withoutStatements.push(await batchFrames(b, false));
  const seals = [];
  // The closed hours, each slice of no budget sealing one (the first databases' oldest hours).
  const sealedBy = new Date(firstTs + 3_600_000);
  for (let s = 0; s < integerFlag(flags, 'seals'); s++) seals.push(await framesOf(() => services.seal.slice(sealedBy, 0)));
  db.close();
  const f = (values) => `p50 ${percentile(values, 0.5)}, max ${Math.max(...values)} (${values.length})`;
  out(`WAL frames (pages of ${pageSize} B) per batch of ${fleet.databases.length / fleet.agents.length} collections x 20 statements: ${f(withStatements)}`);
  out(`WAL frames per batch of the same collections without statements: ${f(withoutStatements)}`);
  out(`WAL frames per seal slice (one database-hour): ${f(seals)}`);
} finally {
  rmSync(copy, { recursive: true, force: true });
}
