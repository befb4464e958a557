import { Gauge, type Registry } from 'prom-client';

/** What the server's own health gauges read at scrape time, each once, each a cheap indexed read. */
export interface HealthSources {
  /** Active alerts of every organization by severity, every severity present (0 when none). */
  activeAlerts: () => Record<string, number>;
  /** Pending deliveries to enabled webhooks: how many, and when the oldest was created (ms, null when none). */
  webhookBacklog: () => { pending: number; oldest_created_at: number | null };
  /** The state database's files on disk, in bytes. */
  storageFiles: () => { database: number; wal: number };
  now: () => Date;
}

/** Gauges of the server's own state that an operator alerts on: alerts, the webhook outbox, storage. */
export class HealthGauges {
  readonly #alerts;
  readonly #pending;
  readonly #oldestPending;
  readonly #storage;

  constructor(
    registry: Registry,
    private readonly sources: HealthSources,
  ) {
    const registers = [registry];
    this.#alerts = new Gauge({
      name: 'dbmon_alerts_active',
      help: 'Alerts active now, across organizations, by severity.',
      labelNames: ['severity'],
      registers,
    });
    this.#pending = new Gauge({
      name: 'dbmon_webhook_outbox_pending_deliveries',
      help: 'Webhook deliveries waiting to be sent or retried, to enabled endpoints.',
      registers,
    });
    this.#oldestPending = new Gauge({
      name: 'dbmon_webhook_outbox_oldest_pending_age_seconds',
      help: 'Age of the oldest webhook delivery still pending, to an enabled endpoint; 0 when none is.',
      registers,
    });
    this.#storage = new Gauge({
      name: 'dbmon_storage_file_size_bytes',
      help: "Size of the server's state database on disk, by file: database (page count times page size) and wal (the write-ahead log).",
      labelNames: ['file'],
      registers,
    });
  }

  /** Reads every source once: called once per scrape, before the registry is written. */
  refresh(): void {
    for (const [severity, count] of Object.entries(this.sources.activeAlerts())) this.#alerts.set({ severity }, count);
    const backlog = this.sources.webhookBacklog();
    this.#pending.set(backlog.pending);
    const oldest = backlog.oldest_created_at;
    this.#oldestPending.set(oldest === null ? 0 : Math.max(0, this.sources.now().getTime() - oldest) / 1000);
    const sizes = this.sources.storageFiles();
    this.#storage.set({ file: 'database' }, sizes.database);
    this.#storage.set({ file: 'wal' }, sizes.wal);
  }
}
