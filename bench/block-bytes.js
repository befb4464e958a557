// Bytes per stored raw value: today's `samples` table (a row per collection, REAL columns, text
// database ids, its unique index) against the block layout of #14 (server/metrics/blocks/): one
// block per (hour, series) with the values at the catalog's steps, the timestamps once per
// database-hour, in a `WITHOUT ROWID` table keyed time-first by integers. The same generated fleet
// (bench/fleet-state.js's values) goes into both, each in a SQLite file of its own with the state
// database's page size; a layout's bytes are its file's pages.
//
//   npm run build && node bench/block-bytes.js [--databases 50] [--hours 24] [--jitter-ms 0]
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { fleetSnapshot, repoRoot } from './fleet-state.js';
import { integerFlag, out } from './output.js';

const { values: flags } = parseArgs({
  options: { databases: { type: 'string', default: '50' }, hours: { type: 'string', default: '24' }, 'jitter-ms': { type: 'string', default: '0' } },
  strict: true,
});
const databases = integerFlag(flags, 'databases');
const hours = integerFlag(flags, 'hours');
const jitterMs = integerFlag(flags, 'jitter-ms', 0);
const load = (path) => import(pathToFileURL(join(repoRoot, 'dist', path)).href);
const [{ metricCatalog, placeReader }, { encodeSeriesBlock, decodeSeriesBlock }, { encodeTimestampBlock }] = await Promise.all([
  load('common/metric-catalog.js'),
  load('server/metrics/blocks/series-block.js'),
  load('server/metrics/blocks/timestamp-block.js'),
]);

const hourMs = 3_600_000;
const tickMs = 10_000;
const startMs = Math.floor(Date.UTC(2026, 10, 1) / hourMs) * hourMs;
let seed = 14;
const next = () => {
  seed = (seed * 16807) % 2_147_483_647;
  return seed / 2_147_483_647;
};
const readers = metricCatalog.map((metric) => placeReader(metric.snapshot.replace(/^metrics\./, '')));

/** One hour of each database: its timestamps and each metric's values, as collected. */
function* databaseHours() {
  for (let hour = 0; hour < hours; hour++) {
    const hourStart = startMs + hour * hourMs;
    for (let index = 0; index < databases; index++) {
      const timestamps = [];
      const values = metricCatalog.map(() => []);
      for (let ts = hourStart; ts < hourStart + hourMs; ts += tickMs) {
        const at = ts + (jitterMs === 0 ? 0 : Math.floor(next() * jitterMs));
        const snapshot = fleetSnapshot(at, index, next);
        timestamps.push(at);
        const fields = snapshot.reachable ? { ...snapshot.metrics, database_size_bytes: snapshot.database_size_bytes } : {};
        for (const [m, read] of readers.entries()) values[m].push(read(fields));
      }
      yield { hourStart, index, timestamps, values, reachable: timestamps.map(() => 1) };
    }
  }
}

function fileBytes(db) {
  return db.pragma('page_count', { simple: true }) * db.pragma('page_size', { simple: true });
}

const dir = mkdtempSync(join(tmpdir(), 'dbmon-block-bytes-'));
try {
  const rows = new Database(join(dir, 'rows.db'));
  rows.pragma('journal_mode = WAL');
  const columns = metricCatalog.map((metric) => metric.column);
  rows.exec(`CREATE TABLE samples (id INTEGER PRIMARY KEY, database_id TEXT NOT NULL, ts INTEGER NOT NULL, reachable INTEGER NOT NULL,
    ${metricCatalog.map((metric) => `${metric.column} ${metric.precision === 'integer' ? 'INTEGER' : 'REAL'}`).join(', ')},
    latency_source TEXT, UNIQUE (database_id, ts))`);
  const insertRow = rows.prepare(`INSERT INTO samples (database_id, ts, reachable, ${columns.join(', ')}, latency_source) VALUES (${['?', '?', '?', ...columns, '?'].map(() => '?').join(', ')})`);
  const blocks = new Database(join(dir, 'blocks.db'));
  blocks.pragma('journal_mode = WAL');
  blocks.exec(`CREATE TABLE series_blocks (hour INTEGER NOT NULL, series INTEGER NOT NULL, block BLOB NOT NULL, PRIMARY KEY (hour, series)) WITHOUT ROWID;
    CREATE TABLE timestamp_blocks (hour INTEGER NOT NULL, database INTEGER NOT NULL, block BLOB NOT NULL, PRIMARY KEY (hour, database)) WITHOUT ROWID;`);
  const insertBlock = blocks.prepare('INSERT INTO series_blocks (hour, series, block) VALUES (?, ?, ?)');
  const insertTimestamps = blocks.prepare('INSERT INTO timestamp_blocks (hour, database, block) VALUES (?, ?, ?)');
  const emptyRows = fileBytes(rows);
  const emptyBlocks = fileBytes(blocks);
  const ids = Array.from({ length: databases }, () => randomUUID());

  let values = 0;
  let payload = 0;
  let timestampPayload = 0;
  let largestBlock = 0;
  let worstError = 0;
  let encodeMs = 0;
  const pending = [];
  for (const hour of databaseHours()) {
    const started = performance.now();
    const encoded = hour.values.map((series, m) => encodeSeriesBlock(series, metricCatalog[m].step));
    const timestamps = encodeTimestampBlock(hour.hourStart, hour.timestamps);
    encodeMs += performance.now() - started;
    for (const [m, block] of encoded.entries()) {
      const decoded = decodeSeriesBlock(block, metricCatalog[m].step);
      for (const [i, value] of hour.values[m].entries()) if (value !== null) worstError = Math.max(worstError, Math.abs(decoded[i] - value) / metricCatalog[m].step);
      values += hour.values[m].filter((value) => value !== null).length;
      payload += block.length;
      largestBlock = Math.max(largestBlock, block.length);
    }
    timestampPayload += timestamps.length;
    pending.push({ hour, encoded, timestamps });
    if (hour.index === databases - 1) {
      // Rows as batches arrive (collection order); blocks as an hour is sealed.
      rows.transaction(() => {
        for (let tick = 0; tick < hourMs / tickMs; tick++) {
          for (const { hour: h } of pending) {
            insertRow.run(ids[h.index], h.timestamps[tick], 1, ...h.values.map((series) => series[tick]), 'estimate');
          }
        }
      })();
      blocks.transaction(() => {
        const hourKey = hour.hourStart / hourMs;
        for (const { hour: h, encoded: e, timestamps: ts } of pending) {
          insertTimestamps.run(hourKey, h.index, ts);
          for (const [m, block] of e.entries()) insertBlock.run(hourKey, h.index * metricCatalog.length + m, block);
        }
      })();
      pending.length = 0;
    }
  }
  rows.pragma('wal_checkpoint(TRUNCATE)');
  blocks.pragma('wal_checkpoint(TRUNCATE)');
  const rowBytes = fileBytes(rows) - emptyRows;
  const blockBytes = fileBytes(blocks) - emptyBlocks;
  out(`${databases} databases x ${hours} h of 10 s samples (bench/fleet-state.js values, jitter ${jitterMs} ms), ${values} values; cores ${availableParallelism()}, node ${process.version}, load average ${loadavg().map((v) => v.toFixed(2)).join(' ')}`);
  out(`rows (today's samples table and its index): ${(rowBytes / values).toFixed(2)} B/value on pages`);
  out(`blocks: payload ${(payload / values).toFixed(2)} B/value + timestamps ${(timestampPayload / values).toFixed(3)} B/value; on pages ${(blockBytes / values).toFixed(2)} B/value (largest block ${largestBlock} B)`);
  out(`ratio rows / blocks on pages: ${(rowBytes / blockBytes).toFixed(1)}x; largest error ${worstError.toFixed(3)} steps; encoding ${((encodeMs * 1e6) / values).toFixed(0)} ns/value`);
  rows.close();
  blocks.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
