import { operators } from '../../alerts/alert-evaluator.js';
import { severities } from '../../alerts/alerts-schema.js';
import { ruleMetricChoices, ruleStatusValues } from './rule-metrics.js';
import { ScrollTable } from './scroll-table.js';

/** The time spans the alert list can be narrowed to, by when an alert fired; by default none, so no active alert is hidden. */
const alertSpans = [
  { value: '', label: 'Any time' },
  { value: '1h', label: 'Last hour' },
  { value: '24h', label: 'Last 24 hours' },
  { value: '7d', label: 'Last 7 days' },
  { value: '30d', label: 'Last 30 days' },
] as const;

/**
 * The alerts screen's frame: the alert list with its filters and the rules. The browser code
 * (web/alerts-page.ts) fills both from /v1; the editing controls are there only for those who may edit.
 */
export function AlertsPage({ canEdit }: { canEdit: boolean }) {
  return (
    <div id="alerts-page" data-can-edit={canEdit ? 'true' : 'false'} data-metric-units={JSON.stringify(Object.fromEntries(ruleMetricChoices.map((choice) => [choice.path, choice.unit])))}>
      <h1>Alerts</h1>
      <p id="refresh-problem" class="alert" role="alert" hidden />
      <section>
        <div class="section-head">
          <h2 id="alert-list-title">Alerts</h2>
          <div class="filters">
            <FilterSelect id="alert-state" label="State" options={[['active', 'Active'], ['resolved', 'Resolved'], ['all', 'All']]} />
            <FilterSelect id="alert-severity" label="Severity" options={[['', 'All'], ...severities.map((severity): [string, string] => [severity, severity])]} />
            <FilterSelect id="alert-database" label="Database" options={[['', 'All']]} />
            <FilterSelect id="alert-span" label="Fired" options={alertSpans.map(({ value, label }): [string, string] => [value, label])} />
          </div>
        </div>
        <p id="alert-status" class="muted hint" aria-live="polite">
          Loading…
        </p>
        <ScrollTable titleId="alert-list-title" bodyId="alert-rows" columns={['Severity', 'Database', 'What fired', 'Fired', 'State', ...(canEdit ? ['Action'] : [])]} />
      </section>
      {canEdit && (
        <dialog id="resolve-dialog" aria-labelledby="resolve-title">
          <form id="resolve-form" method="dialog">
            <h2 id="resolve-title">Resolve the alert</h2>
            <p id="resolve-what" class="muted" />
            <div class="field">
              <label for="resolve-note">Note (optional)</label>
              <textarea id="resolve-note" maxLength={1000} rows={3} />
            </div>
            <p id="resolve-problem" class="alert" role="alert" hidden />
            <div class="actions">
              <button type="submit">Resolve</button>
              <button type="button" class="secondary" id="resolve-cancel">
                Cancel
              </button>
            </div>
          </form>
        </dialog>
      )}
      <section>
        <h2 id="rules-title">Rules</h2>
        <p id="rules-problem" class="alert" role="alert" hidden />
        <ScrollTable titleId="rules-title" bodyId="rule-rows" columns={['Rule', 'Database', 'Condition', 'Held for', 'Severity', 'Enabled', ...(canEdit ? ['Actions'] : [])]} />
        {canEdit ? <RuleForm /> : <p class="muted">Your role may read the rules; a member or an admin changes them.</p>}
      </section>
      <noscript>
        <p class="alert">The alerts are drawn by this page's script: allow JavaScript for this site to see them.</p>
      </noscript>
    </div>
  );
}

function FilterSelect({ id, label, options }: { id: string; label: string; options: [value: string, text: string][] }) {
  return (
    <span class="filter">
      <label for={id}>{label}</label>
      <select id={id}>
        {options.map(([value, text]) => (
          <option value={value}>{text}</option>
        ))}
      </select>
    </span>
  );
}

/** Creates a rule, or edits the one picked in the table; the threshold's unit follows the metric. */
function RuleForm() {
  return (
    <form id="rule-form" class="card rule-form" aria-labelledby="rule-form-title">
      <h2 id="rule-form-title">New rule</h2>
      <div class="field">
        <label for="rule-name">Name</label>
        <input id="rule-name" required maxLength={100} />
      </div>
      <div class="field">
        <label for="rule-database">Database</label>
        <select id="rule-database">
          <option value="">Every database</option>
        </select>
      </div>
      <div class="field">
        <label for="rule-metric">Metric</label>
        <select id="rule-metric" aria-describedby="rule-metric-help">
          {ruleMetricChoices.map((choice) => (
            <option value={choice.path} data-unit={choice.unit} data-help={choice.help}>
              {choice.path}
            </option>
          ))}
        </select>
        <p id="rule-metric-help" class="hint muted">
          {ruleMetricChoices[0]!.help}
        </p>
      </div>
      <div class="rule-condition">
        <div class="field">
          <label for="rule-operator">Comparison</label>
          <select id="rule-operator">
            {operators.map((operator) => (
              <option value={operator}>{operator}</option>
            ))}
          </select>
        </div>
        <div class="field" id="rule-threshold-field">
          <label for="rule-threshold">Threshold</label>
          <span class="with-unit">
            <input id="rule-threshold" type="number" step="any" required aria-describedby="rule-threshold-unit" />
            <span id="rule-threshold-unit" class="unit" />
          </span>
        </div>
        <div class="field" id="rule-status-field" hidden>
          <label for="rule-status">Status</label>
          <select id="rule-status">
            {ruleStatusValues.map((status) => (
              <option value={status}>{status === 'pending' ? 'no data yet (pending)' : status}</option>
            ))}
          </select>
        </div>
      </div>
      <div class="field">
        <label for="rule-duration">Held for (seconds)</label>
        <input id="rule-duration" type="number" min={0} max={86400} step={1} value="0" required aria-describedby="rule-duration-hint" />
        <p id="rule-duration-hint" class="hint muted">
          How long the condition must hold before the alert fires; 0 fires on the first sample. A silence of more than two
          collection intervals starts it again.
        </p>
      </div>
      <div class="field">
        <label for="rule-severity">Severity</label>
        <select id="rule-severity">
          {severities.map((severity) => (
            <option value={severity} selected={severity === 'warning'}>
              {severity}
            </option>
          ))}
        </select>
      </div>
      <div class="field checkbox">
        <input id="rule-enabled" type="checkbox" checked />
        <label for="rule-enabled">Enabled</label>
      </div>
      <p id="rule-problem" class="alert" role="alert" hidden />
      <div class="actions">
        <button type="submit" id="rule-submit">
          Create rule
        </button>
        <button type="button" class="secondary" id="rule-cancel" hidden>
          Cancel editing
        </button>
      </div>
    </form>
  );
}
