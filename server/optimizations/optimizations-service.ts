import type { AnalyzeStatement, ApplyPayload } from '../../common/agent-protocol/optimization-jobs.js';
import { newId } from '../crypto/new-id.js';
import type { DatabasesService } from '../databases/databases-service.js';
import { ConflictError, NotFoundError, PermissionError } from '../errors.js';
import type { QueriesService } from '../queries/queries-service.js';
import type { OptimizationJobsRepository, JobKind } from './optimization-jobs-repository.js';
import type { OptimizationEvents } from './optimization-events.js';
import type { OptimizationFilter, OptimizationRow, OptimizationsRepository } from './optimizations-repository.js';
import type { OptimizeBody } from './optimizations-schema.js';
import type { Transaction } from '../storage/open-database.js';

export interface OptimizationPolicy {
  /** Statements analyzed when a request names none: the top ones by total time. */
  topStatements: number;
  /** The window a request without query_id looks back over, and the window of the measured means. */
  windowMs: number;
}

export const defaultOptimizationPolicy: OptimizationPolicy = { topStatements: 5, windowMs: 86_400_000 };

/** What each non-applicable status answers to an apply request. */
const notApplicable: Record<string, { code: string; message: string }> = {
  pending: { code: 'not_ready', message: 'The analysis has not finished yet' },
  analyzing: { code: 'not_ready', message: 'The analysis has not finished yet' },
  no_suggestion: { code: 'nothing_to_apply', message: 'The analysis found nothing to apply' },
  failed: { code: 'optimization_failed', message: 'This optimization failed; request a new one' },
  dismissed: { code: 'optimization_dismissed', message: 'This optimization was dismissed' },
};

/** The public side of optimizations: requests, reads, apply, and the measured effect. */
export class OptimizationsService {
  constructor(
    private readonly optimizations: OptimizationsRepository,
    private readonly jobs: OptimizationJobsRepository,
    private readonly databases: DatabasesService,
    private readonly queries: QueriesService,
    private readonly events: OptimizationEvents,
    private readonly transaction: Transaction,
    private readonly policy: OptimizationPolicy = defaultOptimizationPolicy,
  ) {}

  /** Records the request (status pending) and queues its analysis for the agent that monitors the database. */
  request(orgId: string, databaseId: string, body: OptimizeBody, now: Date): OptimizationRow {
    const database = this.databases.get(orgId, databaseId);
    if (body.auto_apply && !this.optimizations.autoApplyAllowed(orgId)) {
      throw new PermissionError(
        'This organization does not allow optimizations to apply automatically (an operator enables it with ' +
          '`dbmon orgs set --org ID --auto-apply-optimizations true`)',
        'auto_apply_not_allowed',
      );
    }
    const statements = this.candidateStatements(database.id, body.query_id, now);
    const at = now.toISOString();
    const row: OptimizationRow = {
      ...emptyOptimization(),
      id: newId('opt'),
      org_id: orgId,
      database_id: database.id,
      query_id: body.query_id ?? null,
      status: 'pending',
      auto_apply: Number(body.auto_apply),
      created_at: at,
      updated_at: at,
    };
    this.transaction(() => {
      this.optimizations.insert(row);
      this.enqueue(row, 'analyze', statements, now);
    });
    return row;
  }

  get(orgId: string, id: string): OptimizationRow {
    const row = this.optimizations.findById(orgId, id);
    if (row === undefined) throw new NotFoundError(`No optimization ${id}`, 'id');
    return row;
  }

  list(orgId: string, filter: OptimizationFilter, limit: number, offset: number) {
    return this.optimizations.list(orgId, filter, limit, offset);
  }

  /** Only a ready optimization applies; it turns `applying` at once, so a second request is refused. */
  apply(orgId: string, id: string, now: Date): OptimizationRow {
    return this.transaction(() => {
      const row = this.get(orgId, id);
      if (row.status === 'applied' || row.status === 'applying') {
        throw new ConflictError('already_applied', `Optimization ${id} is already ${row.status}`, 'id');
      }
      const refusal = notApplicable[row.status];
      if (refusal !== undefined) throw new ConflictError(refusal.code, `${refusal.message} (status ${row.status})`, 'id');
      return this.startApplying(row, now);
    });
  }

  /** A ready suggestion someone chose not to run: it stays listed as dismissed and never applies. */
  dismiss(orgId: string, id: string, now: Date): OptimizationRow {
    return this.transaction(() => {
      const row = this.get(orgId, id);
      if (row.status === 'dismissed') throw new ConflictError('already_dismissed', `Optimization ${id} is already dismissed`, 'id');
      if (row.status !== 'ready') throw new ConflictError('not_dismissable', `Only a ready optimization can be dismissed (status ${row.status})`, 'id');
      const next: OptimizationRow = { ...row, status: 'dismissed', updated_at: now.toISOString() };
      this.optimizations.update(next);
      return next;
    });
  }

  /** Queues the apply job of a ready optimization; call inside a transaction. */
  startApplying(row: OptimizationRow, now: Date): OptimizationRow {
    const next: OptimizationRow = { ...row, status: 'applying', error: null, updated_at: now.toISOString() };
    this.optimizations.update(next);
    const query = row.query_id === null ? undefined : this.queries.find(row.database_id, row.query_id);
    const payload: ApplyPayload = {
      kind: row.kind as ApplyPayload['kind'],
      target: JSON.parse(row.target!) as ApplyPayload['target'],
      query: query?.query ?? null,
    };
    this.enqueue(next, 'apply', payload, now);
    return next;
  }

  autoApplyAllowed(orgId: string): boolean {
    return this.optimizations.autoApplyAllowed(orgId);
  }

  /** The organization setting behind `auto_apply` (off by default); the operator CLI sets it. */
  setAutoApply(orgId: string, allowed: boolean): void {
    if (!this.optimizations.setAutoApply(orgId, allowed)) throw new NotFoundError(`No organization ${orgId}`, 'org');
  }

  /** The mean time per call over the window before applying, frozen when the apply is recorded. */
  measureBefore(row: OptimizationRow, appliedMs: number): number | null {
    if (row.query_id === null) return null;
    return this.queries.meanTime(row.query_id, appliedMs - this.policy.windowMs, appliedMs);
  }

  /**
   * After statement intervals ending in [fromTs, toTs] are stored: the applied index suggestions of
   * that database whose window they fall in get their measured mean time after applying, over the
   * intervals that began after it (up to the window). Runs inside the ingest transaction.
   */
  measureAfter(databaseId: string, fromTs: number, toTs: number, now: Date): void {
    for (const row of this.optimizations.awaitingMeasurement(databaseId, fromTs - this.policy.windowMs, toTs)) {
      const after = this.queries.meanTime(row.query_id!, row.applied_ms!, row.applied_ms! + this.policy.windowMs);
      if (after === null || after === row.measured_mean_time_ms_after) continue;
      this.optimizations.update({ ...row, measured_mean_time_ms_after: after, updated_at: now.toISOString() });
    }
  }

  private candidateStatements(databaseId: string, queryId: string | undefined, now: Date): AnalyzeStatement[] {
    const from = now.getTime() - this.policy.windowMs;
    if (queryId === undefined) {
      return this.queries
        .topByTotalTime(databaseId, from, now.getTime(), this.policy.topStatements)
        .map((row) => ({ query_id: row.id, query: row.query, calls: row.calls, total_time_ms: row.total_time_ms, mean_time_ms: row.mean_time_ms }));
    }
    const query = this.queries.find(databaseId, queryId);
    if (query === undefined) throw new NotFoundError(`No statement ${queryId} on database ${databaseId}`, 'query_id');
    const totals = this.queries.totals(databaseId, queryId, from, now.getTime());
    return [
      {
        query_id: query.id,
        query: query.query,
        calls: totals?.calls ?? 0,
        total_time_ms: totals?.total_time_ms ?? 0,
        mean_time_ms: totals?.mean_time_ms ?? 0,
      },
    ];
  }

  private enqueue(row: OptimizationRow, kind: JobKind, payload: unknown, now: Date): void {
    this.jobs.insert({
      id: newId('job'),
      optimization_id: row.id,
      database_id: row.database_id,
      kind,
      payload: JSON.stringify(payload),
      state: 'queued',
      attempts: 0,
      leased_by: null,
      lease_expires_ms: null,
      created_at: now.toISOString(),
      finished_at: null,
      cancel_reason: null,
    });
  }

  /** Records an event for a change made in the current transaction. */
  recordEvent(type: Parameters<OptimizationEvents['record']>[0], row: OptimizationRow, now: Date): void {
    this.events.record(type, row, now);
  }
}

/** A record with every optional field empty. */
export function emptyOptimization(): Omit<OptimizationRow, 'id' | 'org_id' | 'database_id' | 'status' | 'auto_apply' | 'created_at' | 'updated_at'> {
  return {
    query_id: null,
    parent_id: null,
    kind: null,
    summary: null,
    statement: null,
    target: null,
    estimated_improvement_pct: null,
    cost_before: null,
    cost_after: null,
    cost_after_apply: null,
    measured_mean_time_ms_before: null,
    measured_mean_time_ms_after: null,
    confidence: null,
    evidence: null,
    error: null,
    applied_at: null,
    applied_ms: null,
  };
}
