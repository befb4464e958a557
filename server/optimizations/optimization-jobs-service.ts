import { connectionChangedCode } from '../../common/agent-protocol/error-codes.js';
import type { AnalyzeResult, ApplyResult, JobReceipt, JobResult, Suggestion } from '../../common/agent-protocol/job-results.js';
import type { AgentJob, AnalyzeStatement, ApplyPayload } from '../../common/agent-protocol/optimization-jobs.js';
import type { AgentRow } from '../agents/agent-row.js';
import type { DatabasesService } from '../databases/databases-service.js';
import { newId } from '../crypto/new-id.js';
import { ConflictError, InvalidRequestError, NotFoundError } from '../errors.js';
import { embeddedAgent, type JobRow, type OptimizationJobsRepository } from './optimization-jobs-repository.js';
import type { OptimizationRow, OptimizationsRepository } from './optimizations-repository.js';
import { emptyOptimization, type OptimizationsService } from './optimizations-service.js';
import type { Transaction } from '../storage/open-database.js';

export interface JobLeasePolicy {
  analyzeLeaseMs: number;
  /** Long: building an index on a big table takes a while. An apply whose lease runs out is failed, never re-run. */
  applyLeaseMs: number;
  maxAnalyzeAttempts: number;
  /** Jobs handed out per poll. */
  batchSize: number;
  /** An index dbmon created is not proposed for dropping (as unused) this soon after. */
  createdIndexGraceMs: number;
}

export const defaultJobLeasePolicy: JobLeasePolicy = {
  analyzeLeaseMs: 10 * 60_000,
  applyLeaseMs: 24 * 3_600_000,
  maxAnalyzeAttempts: 3,
  batchSize: 10,
  createdIndexGraceMs: 30 * 86_400_000,
};

/** The agent side of optimizations: jobs handed to the agent that monitors a database, and their results. */
export class OptimizationJobsService {
  constructor(
    private readonly jobs: OptimizationJobsRepository,
    private readonly optimizationRows: OptimizationsRepository,
    private readonly optimizations: OptimizationsService,
    private readonly databases: DatabasesService,
    private readonly transaction: Transaction,
    private readonly policy: JobLeasePolicy = defaultJobLeasePolicy,
  ) {}

  /**
   * Leases the open jobs of the databases this agent monitors (`null`: the server's embedded agent,
   * which takes the databases without agent_id). A lease that ran out is handed out again (analysis)
   * or ends the optimization as failed (apply: it may have half happened, so it is never re-run blindly).
   */
  lease(agent: AgentRow | null, now: Date): AgentJob[] {
    const nowMs = now.getTime();
    return this.transaction(() => {
      const leased: AgentJob[] = [];
      for (const job of this.jobs.leasable(agent?.id ?? null, nowMs, this.policy.batchSize)) {
        const optimization = this.optimizationRows.findAnyOrg(job.optimization_id);
        const database = this.databases.findAnyOrg(job.database_id);
        if (optimization === undefined || database === undefined) continue;
        if (job.state === 'leased' && (job.kind === 'apply' || job.attempts >= this.policy.maxAnalyzeAttempts)) {
          this.jobs.finish(job.id, now.toISOString());
          const error =
            job.kind === 'apply'
              ? 'The agent did not report the outcome of applying in time; check the database for the index before retrying'
              : `The agent did not report a result after ${job.attempts} attempts`;
          this.fail(optimization, error, now);
          continue;
        }
        const leaseMs = job.kind === 'apply' ? this.policy.applyLeaseMs : this.policy.analyzeLeaseMs;
        this.jobs.lease(job.id, agent?.id ?? embeddedAgent, nowMs + leaseMs);
        if (job.kind === 'analyze' && optimization.status === 'pending') {
          this.optimizationRows.update({ ...optimization, status: 'analyzing', updated_at: now.toISOString() });
        }
        const base = {
          id: job.id,
          optimization_id: job.optimization_id,
          database: { id: database.id, name: database.name, type: database.type, connection: this.databases.connectionOf(database) },
        };
        leased.push(
          job.kind === 'analyze'
            ? { ...base, kind: 'analyze', statements: JSON.parse(job.payload) as AnalyzeStatement[] }
            : { ...base, kind: 'apply', apply: JSON.parse(job.payload) as ApplyPayload },
        );
      }
      return leased;
    });
  }

  /**
   * Records a job's result. Only the agent holding the lease may report; a repeated report changes
   * nothing; the result of a job cancelled since it was leased is refused (409, code `connection_changed`).
   */
  report(agent: AgentRow | null, jobId: string, result: JobResult, now: Date): JobReceipt {
    return this.transaction(() => {
      const job = this.jobs.findById(jobId);
      if (job === undefined || job.leased_by !== (agent?.id ?? embeddedAgent)) throw new NotFoundError(`No job ${jobId} leased to this agent`, 'id');
      if (job.cancel_reason === 'connection_changed') {
        throw new ConflictError(
          connectionChangedCode,
          `Job ${jobId} was cancelled: the database's connection changed after it was leased, so its result is of another database`,
          'id',
        );
      }
      if (job.state === 'done') return { job_id: jobId, duplicate: true };
      if (result.kind !== job.kind) throw new InvalidRequestError('invalid_parameter', `Job ${jobId} is an ${job.kind} job`, 'kind');
      this.jobs.finish(job.id, now.toISOString());
      const optimization = this.optimizationRows.findAnyOrg(job.optimization_id);
      if (optimization === undefined) return { job_id: jobId, duplicate: false };
      if (result.kind === 'analyze') this.recordAnalysis(optimization, job, result, now);
      else this.recordApply(optimization, result, now);
      return { job_id: jobId, duplicate: false };
    });
  }

  /**
   * After a change of where or as whom a database is reached, in that change's transaction: its
   * open jobs are cancelled (a result still coming back is refused) and their optimizations fail;
   * its ready suggestions, made on another database, are dismissed.
   */
  databaseConnectionChanged(databaseId: string, now: Date): void {
    const at = now.toISOString();
    for (const job of this.jobs.openFor(databaseId)) {
      this.jobs.cancel(job.id, 'connection_changed', at);
      const optimization = this.optimizationRows.findAnyOrg(job.optimization_id);
      if (optimization === undefined) continue;
      const error =
        job.kind === 'apply'
          ? 'The database connection changed while this was being applied; check the database it pointed to before for the index'
          : 'The database connection changed before the analysis finished; request a new one';
      this.fail(optimization, error, now);
    }
    this.optimizationRows.dismissReady(databaseId, 'Dismissed: the database connection changed after the analysis; request a new one', at);
  }

  private recordAnalysis(optimization: OptimizationRow, job: JobRow, result: AnalyzeResult, now: Date): void {
    if (result.outcome === 'failed') {
      this.fail(optimization, result.error ?? 'The analysis failed', now);
      return;
    }
    const statements = JSON.parse(job.payload) as AnalyzeStatement[];
    const creates = result.suggestions.filter((suggestion) => suggestion.kind === 'create_index' && suggestion.query_id !== null);
    let primary: Suggestion | undefined;
    if (optimization.query_id !== null) {
      primary = creates.find((suggestion) => suggestion.query_id === optimization.query_id);
    } else {
      // Without a named statement, the suggestion that saves the most time overall comes first.
      const saved = (suggestion: Suggestion) =>
        (statements.find((statement) => statement.query_id === suggestion.query_id)?.total_time_ms ?? 0) *
        (suggestion.estimated_improvement_pct ?? 0);
      primary = [...creates].sort((a, b) => saved(b) - saved(a))[0];
    }
    const at = now.toISOString();
    if (primary !== undefined) {
      const ready: OptimizationRow = { ...optimization, ...fromSuggestion(primary), status: 'ready', updated_at: at };
      this.optimizationRows.update(ready);
      this.optimizations.recordEvent('optimization.ready', ready, now);
      // Checked again now: the organization may have turned it off since the request.
      if (ready.auto_apply === 1 && this.optimizations.autoApplyAllowed(ready.org_id)) this.optimizations.startApplying(ready, now);
    } else {
      const outcome = optimization.query_id === null ? undefined : result.statements.find((s) => s.query_id === optimization.query_id);
      if (outcome !== undefined && (outcome.outcome === 'refused' || outcome.outcome === 'failed')) {
        this.fail(optimization, outcome.detail, now);
      } else {
        const summary =
          outcome?.detail ??
          (result.statements.length === 0
            ? 'No statement ran in the window, so there was nothing to analyze'
            : result.statements.map((statement) => `${statement.query_id}: ${statement.detail}`).join('\n'));
        this.optimizationRows.update({ ...optimization, status: 'no_suggestion', summary, updated_at: at });
      }
    }
    const others = [
      ...creates.filter((suggestion) => suggestion !== primary && optimization.query_id === null),
      ...this.freshHygiene(optimization.database_id, result.suggestions, now),
    ];
    for (const suggestion of others) {
      if (suggestion.kind === 'create_index' && this.optimizationRows.hasStatement(optimization.database_id, suggestion.kind, suggestion.statement)) continue;
      const row: OptimizationRow = {
        ...emptyOptimization(),
        ...fromSuggestion(suggestion),
        id: newId('opt'),
        org_id: optimization.org_id,
        database_id: optimization.database_id,
        parent_id: optimization.id,
        status: 'ready',
        auto_apply: 0,
        created_at: at,
        updated_at: at,
      };
      this.optimizationRows.insert(row);
      this.optimizations.recordEvent('optimization.ready', row, now);
    }
  }

  /** drop_index suggestions not made before, and not about an index dbmon itself created recently. */
  private freshHygiene(databaseId: string, suggestions: readonly Suggestion[], now: Date): Suggestion[] {
    const since = new Date(now.getTime() - this.policy.createdIndexGraceMs).toISOString();
    const created = new Set(
      this.optimizationRows.indexesCreatedSince(databaseId, since).map((target) => {
        const parsed = JSON.parse(target) as { schema: string; index_name: string };
        return `${parsed.schema}.${parsed.index_name}`;
      }),
    );
    return suggestions.filter(
      (suggestion) =>
        suggestion.kind === 'drop_index' &&
        !created.has(`${suggestion.target.schema}.${suggestion.target.index_name}`) &&
        !this.optimizationRows.hasStatement(databaseId, suggestion.kind, suggestion.statement),
    );
  }

  private recordApply(optimization: OptimizationRow, result: ApplyResult, now: Date): void {
    if (result.outcome === 'failed') {
      this.fail(optimization, result.error ?? 'Applying failed', now);
      return;
    }
    const appliedMs = now.getTime();
    const evidence = { ...(optimization.evidence === null ? {} : (JSON.parse(optimization.evidence) as object)), apply: result.evidence ?? {} };
    const applied: OptimizationRow = {
      ...optimization,
      status: 'applied',
      error: null,
      cost_after_apply: result.cost_after_apply,
      measured_mean_time_ms_before: this.optimizations.measureBefore(optimization, appliedMs),
      measured_mean_time_ms_after: null,
      evidence: JSON.stringify(evidence),
      applied_at: now.toISOString(),
      applied_ms: appliedMs,
      updated_at: now.toISOString(),
    };
    this.optimizationRows.update(applied);
    this.optimizations.recordEvent('optimization.applied', applied, now);
  }

  private fail(optimization: OptimizationRow, error: string, now: Date): void {
    const failed: OptimizationRow = { ...optimization, status: 'failed', error, updated_at: now.toISOString() };
    this.optimizationRows.update(failed);
    this.optimizations.recordEvent('optimization.failed', failed, now);
  }
}

function fromSuggestion(suggestion: Suggestion): Partial<OptimizationRow> {
  return {
    query_id: suggestion.query_id,
    kind: suggestion.kind,
    summary: suggestion.summary,
    statement: suggestion.statement,
    target: JSON.stringify(suggestion.target),
    estimated_improvement_pct: suggestion.estimated_improvement_pct,
    cost_before: suggestion.cost_before,
    cost_after: suggestion.cost_after,
    confidence: suggestion.confidence,
    evidence: JSON.stringify(suggestion.evidence),
    error: null,
  };
}
