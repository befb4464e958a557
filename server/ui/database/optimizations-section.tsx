import type { Optimization } from './database-sections-source.js';
import { milliseconds, Time } from './figures.js';

const statusWords: Record<Optimization['status'], string> = {
  pending: 'waiting for the agent',
  analyzing: 'being analyzed',
  ready: 'ready to apply',
  no_suggestion: 'no suggestion',
  applying: 'applying',
  applied: 'applied',
  failed: 'failed',
  dismissed: 'dismissed',
};

/** What the planner's costs say, in words: never a gain the evidence does not hold. */
function estimatedGain(optimization: Optimization): string {
  if (optimization.cost_before === null || optimization.cost_after === null) return 'not estimated';
  const percent = optimization.estimated_improvement_pct === null ? '' : ` (${optimization.estimated_improvement_pct} % lower)`;
  return `planner cost ${optimization.cost_before} → ${optimization.cost_after}${percent}`;
}

function measuredGain(optimization: Optimization): string {
  const before = optimization.measured_mean_time_ms_before;
  const after = optimization.measured_mean_time_ms_after;
  if (optimization.status !== 'applied') return 'not applied';
  if (before === null || after === null) return 'not measured yet: the statement has to run again';
  const percent = before > 0 ? ` (${Math.round(((before - after) / before) * 100)} % lower)` : '';
  return `mean ${milliseconds(before)} → ${milliseconds(after)}${percent}`;
}

const planOf = (optimization: Optimization, key: 'plan_before' | 'plan_after'): string | undefined => {
  const plan = optimization.evidence?.[key];
  return typeof plan === 'string' ? plan : undefined;
};

/**
 * The database's optimizations with their evidence. A ready one has an apply button (for those who may
 * write) whose confirmation names the exact statement; web/database-sections.ts sends it to /v1.
 */
export function OptimizationsSection({ optimizations, canWrite }: { optimizations: Optimization[]; canWrite: boolean }) {
  return (
    <section id="optimizations" aria-labelledby="optimizations-title" class="database-section">
      <h2 id="optimizations-title">Optimizations</h2>
      {optimizations.length === 0 ? (
        <p class="muted">No optimization requested yet: open a slow query to ask for one.</p>
      ) : (
        <ul class="optimization-list">
          {optimizations.map((optimization) => {
            const before = planOf(optimization, 'plan_before');
            const after = planOf(optimization, 'plan_after');
            return (
              <li class="optimization" id={`optimization-${optimization.id}`} data-status={optimization.status}>
                <p class="optimization-head">
                  <span class={`status status-${optimization.status}`}>{statusWords[optimization.status]}</span>{' '}
                  <span class="muted">
                    requested <Time at={optimization.created_at} />
                  </span>
                </p>
                {optimization.summary !== null && <p>{optimization.summary}</p>}
                {optimization.error !== null && <p class="alert">{optimization.error}</p>}
                {optimization.statement !== null && (
                  <pre class="statement">
                    <code>{optimization.statement}</code>
                  </pre>
                )}
                <dl>
                  <dt>Estimated gain</dt>
                  <dd>{estimatedGain(optimization)}</dd>
                  <dt>Measured gain</dt>
                  <dd>{measuredGain(optimization)}</dd>
                </dl>
                {(before !== undefined || after !== undefined) && (
                  <details>
                    <summary>Plans before and after</summary>
                    {before !== undefined && (
                      <>
                        <h3>Before</h3>
                        <pre class="plan">{before}</pre>
                      </>
                    )}
                    {after !== undefined && (
                      <>
                        <h3>After (with the suggested index)</h3>
                        <pre class="plan">{after}</pre>
                      </>
                    )}
                  </details>
                )}
                {canWrite && optimization.status === 'ready' && (
                  <div class="actions">
                    {optimization.statement !== null && <ApplyConfirmation id={optimization.id} statement={optimization.statement} />}
                    <button type="button" class="secondary" data-dismiss={optimization.id}>
                      Dismiss
                    </button>
                  </div>
                )}
                <p class="alert" role="alert" hidden />
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

/** The apply button opens a dialog that names the statement; only its confirm button calls the API. */
function ApplyConfirmation({ id, statement }: { id: string; statement: string }) {
  const dialogId = `apply-${id}`;
  return (
    <>
      <button type="button" data-opens={dialogId}>
        Apply…
      </button>
      <dialog id={dialogId} aria-labelledby={`${dialogId}-title`} class="confirmation">
        <h3 id={`${dialogId}-title`}>Run this statement on the database?</h3>
        <pre class="statement">
          <code>{statement}</code>
        </pre>
        <p class="muted">The agent runs it without blocking writes; building the index takes a while on a large table.</p>
        <p class="alert" role="alert" hidden />
        <div class="actions">
          <button type="button" data-apply={id}>
            Run it
          </button>
          <button type="button" class="secondary" data-closes={dialogId}>
            Cancel
          </button>
        </div>
      </dialog>
    </>
  );
}
