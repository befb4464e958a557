/** A failure that may pass: the server is down, overloaded or rate limiting, or the network broke. */
export class RetryableError extends Error {
  constructor(
    message: string,
    /** The server's Retry-After, when it gave one. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'RetryableError';
  }
}

/** The server refused the agent key (401/403): nothing passes until an operator fixes the key. */
export class AuthRefusedError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'AuthRefusedError';
  }
}

/** The server refused the batch itself (400, 413): resending it can never succeed. */
export class RejectedBatchError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'RejectedBatchError';
  }
}
