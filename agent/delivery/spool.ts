import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { ownerOnlyDatabaseFile } from '../../common/owner-only.js';
import type { Sample } from '../../common/agent-protocol/sample-batch.js';

export interface SpoolBatch {
  /** 32 hex digits; the server stores a batch id once, so a resent batch is never stored twice. */
  batchId: string;
  samples: Sample[];
  createdAt: string;
  /** True once the batch may have reached the server: from then on it is resent as it is, never merged. */
  attempted: boolean;
}

export interface AppendResult {
  batchId: string;
  /** Samples of older batches dropped to stay within the cap by this append. */
  droppedSamples: number;
}

export interface SpoolStats {
  batches: number;
  samples: number;
  /** Samples ever dropped at the cap, across restarts: `spool_dropped_total` of the protocol. */
  droppedTotal: number;
  /** Samples ever removed because the server refused their batch as malformed. */
  rejectedTotal: number;
}

/** What waits in the spool behind one batch: what remains to send once it is acknowledged. */
export interface SpoolBacklog {
  batches: number;
  /** When the oldest of them was appended (ISO), null when there is none. */
  oldestCreatedAt: string | null;
}

export interface SendLimits {
  maxSamples: number;
  /** Bound on the JSON text of a merged batch's samples, so it stays under the server's body limit. */
  maxBytes: number;
}

/**
 * The durable queue between collection and delivery. Every method commits before it returns
 * (WAL with synchronous=FULL), so a batch appended is on disk before anything tries to send it,
 * and it leaves the disk only when the server acknowledged it or refused it for good.
 */
export interface Spool {
  append(samples: readonly Sample[]): AppendResult;
  /** The oldest batches, oldest first. */
  peek(maxBatches: number): SpoolBatch[];
  /**
   * The batch to send now: the oldest. If it was never attempted, the never-attempted batches
   * behind it are merged into it first (within `limits`), so a backlog drains in few requests.
   * The batch is marked attempted in the same transaction, before it is handed out.
   */
  nextToSend(limits: SendLimits): SpoolBatch | undefined;
  /** Deletes a batch the server acknowledged. False when it is no longer there (dropped at the cap). */
  ack(batchId: string): boolean;
  /** Deletes a batch the server refused for good, counting its samples; returns how many. */
  reject(batchId: string): number;
  droppedTotal(): number;
  /** The batches behind `batchId`, the batch being sent (the oldest): the depth and age an agent reports. */
  backlogBehind(batchId: string): SpoolBacklog;
  stats(): SpoolStats;
  close(): void;
}

export interface SpoolOptions {
  /** Samples kept at most; appending beyond it drops the oldest batches first. */
  maxSamples: number;
  now?: () => Date;
}

const schemaVersion = 1;
const pageCacheKiB = 128;

const schema = `
  CREATE TABLE batches (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    batch_id TEXT NOT NULL UNIQUE,
    sample_count INTEGER NOT NULL,
    bytes INTEGER NOT NULL,
    payload TEXT NOT NULL,
    attempted INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL
  );
  CREATE TABLE counters (
    name TEXT PRIMARY KEY,
    value INTEGER NOT NULL
  );
  INSERT INTO counters (name, value) VALUES ('dropped_samples', 0), ('rejected_samples', 0);
`;

interface BatchRow {
  seq: number;
  batch_id: string;
  sample_count: number;
  bytes: number;
  payload: string;
  attempted: number;
  created_at: string;
}

/** A fresh batch id: 32 hex digits, within the protocol's batch id length. */
export function newBatchId(): string {
  return randomUUID().replaceAll('-', '');
}

/**
 * Opens (creating on first use) the spool file. The file is locked for this process
 * (locking_mode=EXCLUSIVE), so two agents can never share one state directory.
 */
export function openSpool(file: string, options: SpoolOptions): Spool {
  if (!Number.isInteger(options.maxSamples) || options.maxSamples < 1) {
    throw new RangeError(`maxSamples must be a positive integer, got ${options.maxSamples}`);
  }
  const now = options.now ?? (() => new Date());
  ownerOnlyDatabaseFile(file);
  // No busy wait: a spool locked by another agent is an error to report, not to wait out.
  const db = new Database(file, { timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    // Appends and sends touch only the newest and the oldest pages: SQLite's default 2 MB page
    // cache filled up during an outage and stayed resident (6 MiB more for the agent).
    db.pragma(`cache_size = -${pageCacheKiB}`);
    if ((db.pragma('user_version', { simple: true }) as number) === 0) {
      db.transaction(() => {
        db.exec(schema);
        db.pragma(`user_version = ${schemaVersion}`);
      })();
    }
  } catch (error) {
    db.close();
    throw error;
  }

  const statements = {
    insert: db.prepare<[string, number, number, string, string]>(
      'INSERT INTO batches (batch_id, sample_count, bytes, payload, created_at) VALUES (?, ?, ?, ?, ?)',
    ),
    oldest: db.prepare<[number], BatchRow>('SELECT * FROM batches ORDER BY seq LIMIT ?'),
    after: db.prepare<[number, number], BatchRow>('SELECT * FROM batches WHERE seq > ? ORDER BY seq LIMIT ?'),
    byId: db.prepare<[string], BatchRow>('SELECT * FROM batches WHERE batch_id = ?'),
    deleteSeq: db.prepare<[number]>('DELETE FROM batches WHERE seq = ?'),
    merge: db.prepare<[string, number, number, number]>(
      'UPDATE batches SET payload = ?, sample_count = ?, bytes = ?, attempted = 1 WHERE seq = ?',
    ),
    markAttempted: db.prepare<[number]>('UPDATE batches SET attempted = 1 WHERE seq = ?'),
    totals: db.prepare<[], { batches: number; samples: number | null }>(
      'SELECT count(*) AS batches, sum(sample_count) AS samples FROM batches',
    ),
    // count(*) reads the batch_id index, not the payloads.
    count: db.prepare<[], number>('SELECT count(*) FROM batches').pluck(),
    oldestTwo: db.prepare<[], Pick<BatchRow, 'batch_id' | 'created_at'>>('SELECT batch_id, created_at FROM batches ORDER BY seq LIMIT 2'),
    counter: db.prepare<[string], { value: number }>('SELECT value FROM counters WHERE name = ?'),
    addToCounter: db.prepare<[number, string]>('UPDATE counters SET value = value + ? WHERE name = ?'),
  };

  // One process owns the file (exclusive lock), so the running total can live in memory.
  let samplesHeld = statements.totals.get()!.samples ?? 0;

  const append = db.transaction((samples: readonly Sample[]): AppendResult => {
    const payload = JSON.stringify(samples);
    const batchId = newBatchId();
    let dropped = 0;
    if (samples.length > options.maxSamples) {
      // Cannot fit even alone: keep what is there, and count the new batch as dropped.
      dropped = samples.length;
    } else {
      // The oldest may be the batch in flight: if the server stores it after all, it was both
      // stored and counted as dropped (an overcount of at most one batch, only at the cap).
      while (samplesHeld + samples.length > options.maxSamples) {
        const oldest = statements.oldest.get(1)!;
        statements.deleteSeq.run(oldest.seq);
        samplesHeld -= oldest.sample_count;
        dropped += oldest.sample_count;
      }
      statements.insert.run(batchId, samples.length, Buffer.byteLength(payload), payload, now().toISOString());
      samplesHeld += samples.length;
    }
    if (dropped > 0) statements.addToCounter.run(dropped, 'dropped_samples');
    return { batchId, droppedSamples: dropped };
  });

  const nextToSend = db.transaction((limits: SendLimits): SpoolBatch | undefined => {
    const head = statements.oldest.get(1);
    if (head === undefined) return undefined;
    if (head.attempted) return toBatch(head);
    const parts = [head];
    let count = head.sample_count;
    let bytes = head.bytes;
    for (const row of statements.after.iterate(head.seq, limits.maxSamples)) {
      if (row.attempted || count + row.sample_count > limits.maxSamples || bytes + row.bytes > limits.maxBytes) break;
      parts.push(row);
      count += row.sample_count;
      bytes += row.bytes;
    }
    if (parts.length === 1) {
      statements.markAttempted.run(head.seq);
      return toBatch({ ...head, attempted: 1 });
    }
    // Each payload is a JSON array written by append(): splice their elements into one array.
    const payload = `[${parts.map((part) => part.payload.slice(1, -1)).join(',')}]`;
    for (const part of parts.slice(1)) statements.deleteSeq.run(part.seq);
    statements.merge.run(payload, count, Buffer.byteLength(payload), head.seq);
    return toBatch({ ...head, payload, sample_count: count, attempted: 1 });
  });

  const remove = db.transaction((batchId: string, counter?: string): number => {
    const row = statements.byId.get(batchId);
    if (row === undefined) return 0;
    statements.deleteSeq.run(row.seq);
    samplesHeld -= row.sample_count;
    if (counter !== undefined) statements.addToCounter.run(row.sample_count, counter);
    return row.sample_count;
  });

  const counterValue = (name: string): number => statements.counter.get(name)!.value;

  return {
    append(samples) {
      if (samples.length === 0) throw new RangeError('a batch holds at least one sample');
      return append(samples);
    },
    peek: (maxBatches) => statements.oldest.all(maxBatches).map(toBatch),
    nextToSend: (limits) => nextToSend(limits),
    ack: (batchId) => remove(batchId) > 0,
    reject: (batchId) => remove(batchId, 'rejected_samples'),
    droppedTotal: () => counterValue('dropped_samples'),
    backlogBehind(batchId) {
      const [head, next] = statements.oldestTwo.all();
      // The batch being sent is the oldest, unless the cap dropped it meanwhile.
      const sentIsHead = head?.batch_id === batchId;
      const oldest = sentIsHead ? next : head;
      return { batches: statements.count.get()! - Number(sentIsHead), oldestCreatedAt: oldest?.created_at ?? null };
    },
    stats() {
      const totals = statements.totals.get()!;
      return {
        batches: totals.batches,
        samples: totals.samples ?? 0,
        droppedTotal: counterValue('dropped_samples'),
        rejectedTotal: counterValue('rejected_samples'),
      };
    },
    close: () => db.close(),
  };
}

function toBatch(row: BatchRow): SpoolBatch {
  return {
    batchId: row.batch_id,
    samples: JSON.parse(row.payload) as Sample[],
    createdAt: row.created_at,
    attempted: row.attempted === 1,
  };
}
