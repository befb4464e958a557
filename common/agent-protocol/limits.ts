/**
 * The protocol's limits, each once: the server refuses more, so the agent never sends more.
 * Changing one changes both sides.
 */

/** Characters of an error text in a snapshot (the snapshot's, a collector's) and of its latency note. */
export const maxErrorLength = 2000;

/** Samples in one `POST /v1/agent/samples` batch. */
export const maxBatchSamples = 500;

/** Characters of a batch id (of `A-Z a-z 0-9 _ -`). */
export const batchIdLength = { min: 16, max: 64 } as const;

/** Characters of a series' key in a snapshot's `counters` (its name and labels). */
export const maxCounterKeyLength = 200;

/** Statements in one snapshot: the agent keeps those that took the most time. */
export const maxStatementsPerSnapshot = 1000;

/** Characters of a statement's text in a snapshot. */
export const maxQueryLength = 10_000;

/** Characters of an optimization job result's error and of a statement's analysis detail. */
export const maxJobDetailLength = 4000;

/** Seconds of a spool age an agent reports (ten years): more is no real spool, and would take the server's clock arithmetic out of dates. */
export const maxSpoolAgeSeconds = 10 * 365 * 86_400;
