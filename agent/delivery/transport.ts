import type { SpooledSample } from './spool.js';

/** The body of `POST /v1/agent/samples`. */
export interface OutgoingBatch {
  batch_id: string;
  /** Cumulative count of samples this agent's spool ever dropped at its cap. */
  spool_dropped_total: number;
  samples: SpooledSample[];
}

/** The server's answer to a batch it took: stored once, or recognised as a retry (duplicate). */
export interface Ack {
  batch_id: string;
  stored: number;
  duplicate: boolean;
  rejected: number;
}

/**
 * How batches reach the server: over HTTP (HttpTransport), or in-process for the server's
 * embedded agent. Resolves only when the server acknowledged the batch. Failures reject with
 * the errors of delivery-errors.ts: RejectedBatchError (never resend), AuthRefusedError (keep,
 * retry slowly), RetryableError (retry with backoff); anything else counts as retryable.
 */
export interface Transport {
  sendBatch(batch: OutgoingBatch, signal?: AbortSignal): Promise<Ack>;
}
