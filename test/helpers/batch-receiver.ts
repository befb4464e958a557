import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import { agentPaths } from '../../common/agent-protocol/paths.js';
import type { BatchAck, SampleBatch } from '../../common/agent-protocol/sample-batch.js';

/**
 * NOT the dbmon server: a small real HTTP receiver of the agent protocol for the agent's own
 * tests. It answers `GET /v1/agent/assignments` with a fixed list and stores `POST
 * /v1/agent/samples` batches once per batch_id in a real SQLite file, as the server promises
 * to, so tests can count exactly what was stored. Responses can be scripted per request.
 */
export interface BatchReceiver {
  /** `http://127.0.0.1:<port>`; the same across stop()/start(). */
  readonly url: string;
  readonly port: number;
  /** Every POST seen, failures included, in arrival order. */
  readonly requests: ReceivedRequest[];
  /** Answers for the next POSTs, in order; after them, 200 with an ack. */
  plan(...plans: Plan[]): void;
  setAssignments(body: unknown): void;
  /** Samples stored, in storage order. */
  storedSamples(): StoredSample[];
  /** Batch ids stored, in storage order. */
  storedBatchIds(): string[];
  /** Stops listening and drops open connections; the stored data stays. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  /** stop(), and closes the SQLite file. */
  close(): Promise<void>;
}

export interface ReceivedRequest {
  batchId: string;
  sampleCount: number;
  spoolDroppedTotal: number;
  spoolBatches: number | undefined;
  spoolOldestBatchAgeSeconds: number | undefined;
  status: number;
  atMs: number;
  headers: IncomingMessage['headers'];
}

export interface StoredSample {
  batch_id: string;
  database_id: string;
  timestamp: string;
}

export type Plan =
  | { status: number; body?: unknown; headers?: Record<string, string> }
  /** Stores the batch, then waits for `hold` before answering (or never, if the client dies). */
  | { store: true; hold: (batchId: string) => Promise<void> };

export interface BatchReceiverOptions {
  dbFile: string;
  port?: number;
  assignments?: unknown;
  /** Called on every POST before it is answered. */
  onRequest?: (batchId: string) => void;
}

export async function startBatchReceiver(options: BatchReceiverOptions): Promise<BatchReceiver> {
  const db = new Database(options.dbFile);
  db.pragma('journal_mode = WAL');
  db.exec(`
    CREATE TABLE IF NOT EXISTS batches (seq INTEGER PRIMARY KEY, batch_id TEXT NOT NULL UNIQUE);
    CREATE TABLE IF NOT EXISTS samples (seq INTEGER PRIMARY KEY, batch_id TEXT NOT NULL, database_id TEXT NOT NULL, timestamp TEXT NOT NULL);
  `);
  const insertBatch = db.prepare('INSERT OR IGNORE INTO batches (batch_id) VALUES (?)');
  const insertSample = db.prepare('INSERT INTO samples (batch_id, database_id, timestamp) VALUES (?, ?, ?)');
  const store = db.transaction((body: SampleBatch): boolean => {
    if (insertBatch.run(body.batch_id).changes === 0) return false;
    for (const sample of body.samples) insertSample.run(body.batch_id, sample.database_id, sample.snapshot.timestamp);
    return true;
  });

  const requests: ReceivedRequest[] = [];
  const plans: Plan[] = [];
  let assignments: unknown = options.assignments ?? { agent_id: 'agent_test', databases: [] };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}): void => {
      response.writeHead(status, { 'content-type': 'application/json', ...headers });
      response.end(JSON.stringify(body));
    };
    if (request.method === 'GET' && request.url === agentPaths.assignments) return send(200, assignments);
    if (request.method !== 'POST' || request.url !== agentPaths.samples) {
      return send(404, { error: { type: 'not_found', message: 'no such route' } });
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as SampleBatch;
    options.onRequest?.(body.batch_id);
    const plan = plans.shift();
    const record = (status: number): void => {
      requests.push({
        batchId: body.batch_id,
        sampleCount: body.samples.length,
        spoolDroppedTotal: body.spool_dropped_total!,
        spoolBatches: body.spool_batches,
        spoolOldestBatchAgeSeconds: body.spool_oldest_batch_age_seconds,
        status,
        atMs: performance.now(),
        headers: request.headers,
      });
    };
    if (plan !== undefined && 'status' in plan) {
      record(plan.status);
      return send(plan.status, plan.body ?? { error: { type: 'api_error', message: `scripted ${plan.status}` } }, plan.headers);
    }
    const stored = store(body);
    record(200);
    if (plan !== undefined) await plan.hold(body.batch_id);
    const ack: BatchAck = { batch_id: body.batch_id, stored: stored ? body.samples.length : 0, duplicate: !stored, rejected: 0 };
    send(200, ack);
  };

  let server: Server | undefined;
  let port = options.port ?? 0;
  const start = async (): Promise<void> => {
    const next = createServer((request, response) => {
      handle(request, response).catch(() => response.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      next.once('error', reject);
      next.listen(port, '127.0.0.1', () => resolve());
    });
    port = (next.address() as AddressInfo).port;
    server = next;
  };
  const stop = async (): Promise<void> => {
    const current = server;
    server = undefined;
    if (current === undefined) return;
    current.closeAllConnections();
    await new Promise<void>((resolve) => current.close(() => resolve()));
  };
  await start();

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    plan: (...next) => void plans.push(...next),
    setAssignments: (body) => void (assignments = body),
    storedSamples: () => db.prepare<[], StoredSample>('SELECT batch_id, database_id, timestamp FROM samples ORDER BY seq').all(),
    storedBatchIds: () => db.prepare<[], { batch_id: string }>('SELECT batch_id FROM batches ORDER BY seq').all().map((row) => row.batch_id),
    stop,
    start,
    close: async () => {
      await stop();
      db.close();
    },
  };
}

/** A loopback port nobody listens on (yet): connecting to it is refused. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
