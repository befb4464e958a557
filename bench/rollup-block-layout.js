// The rollup_blocks table as a rowid table (what migration 0032 creates) against WITHOUT ROWID:
// this checkout's fleet state's blocks copied, in random order (as the seal job writes them, one
// database after another, pass after pass), into both layouts in a scratch database; their bytes
// (dbstat, indexes included) and the mean time to read the blocks of 24 h of one database at 1 m.
//
//   npm run build && node bench/rollup-block-layout.js [--databases 200] [--days 1]
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { describeRun, fleetArgs, fleetState } from './fleet-state.js';
import { out } from './output.js';

const Database = createRequire(import.meta.url)('better-sqlite3');
const flags = fleetArgs();
const { dir, fleet } = await fleetState(flags);
const scratch = join(tmpdir(), `dbmon-block-layout-${process.pid}.db`);
const db = new Database(scratch);
try {
  db.exec(`ATTACH '${join(dir, 'dbmon.db')}' AS fleet`);
  const columns = 'database_id TEXT NOT NULL, resolution TEXT NOT NULL, span_start INTEGER NOT NULL, block BLOB NOT NULL, PRIMARY KEY (database_id, resolution, span_start)';
  const layouts = { rowid: '', 'WITHOUT ROWID': 'WITHOUT ROWID' };
  out(describeRun(flags));
  for (const [name, suffix] of Object.entries(layouts)) {
    const table = name === 'rowid' ? 'with_rowid' : 'without_rowid';
    db.exec(`CREATE TABLE ${table} (${columns}) ${suffix}`);
    db.exec(`INSERT INTO ${table} SELECT database_id, resolution, span_start, block FROM fleet.rollup_blocks ORDER BY random()`);
    const bytes = db.prepare('SELECT sum(pgsize) FROM dbstat WHERE name IN (SELECT name FROM sqlite_schema WHERE tbl_name = ?)').pluck().get(table);
    const read = db.prepare(`SELECT span_start, block FROM ${table} WHERE database_id = ? AND resolution = '1m' AND span_start > ? AND span_start < ? ORDER BY span_start`);
    const ids = fleet.databases.map(({ id }) => id);
    const readOne = (i) => read.all(ids[(i * 7) % ids.length], fleet.endMs - 86_400_000 - 3_600_000, fleet.endMs);
    for (let i = 0; i < 200; i++) readOne(i);
    const started = performance.now();
    for (let i = 0; i < 1_000; i++) readOne(i);
    out(`${name.padEnd(14)} ${(bytes / 2 ** 20).toFixed(1)} MiB, 24 h of blocks read in ${((performance.now() - started) / 1_000).toFixed(3)} ms (mean of 1,000)`);
  }
} finally {
  db.close();
  rmSync(scratch, { force: true });
}
