import type { BatchAck, SampleBatch } from '../../common/agent-protocol/sample-batch.js';

/**
 * How batches reach the server: over HTTP (HttpTransport), or in-process for the server's
 * embedded agent. Resolves only when the server acknowledged the batch. Failures reject with
 * the errors of delivery-errors.ts: RejectedBatchError (never resend), AuthRefusedError (keep,
 * retry slowly), RetryableError (retry with backoff); anything else counts as retryable.
 */
export interface Transport {
  sendBatch(batch: SampleBatch, signal?: AbortSignal): Promise<BatchAck>;
}
