import type { AlertRule } from './database-sections-source.js';
import { ScrollRegion } from '../scroll-region.js';

/** Where the alerts page opens `ruleId` in its rules editor. */
export const ruleEditorHref = (ruleId: string) => `/alerts?${new URLSearchParams({ edit_rule: ruleId })}#rule-form`;

/** The rules that watch this database: its own and the organization's that watch every database; each leads to its editor for those who may edit. */
export function AlertRulesSection({ rules, canWrite }: { rules: AlertRule[]; canWrite: boolean }) {
  return (
    <section id="alert-rules" aria-labelledby="alert-rules-title" class="database-section">
      <h2 id="alert-rules-title">Alert rules that apply</h2>
      {rules.length === 0 ? (
        <p class="muted">No alert rule watches this database.</p>
      ) : (
        <ScrollRegion label="Alert rules, scrollable">
          <table class="alert-rules">
            <thead>
              <tr>
                <th scope="col">Rule</th>
                <th scope="col">Condition</th>
                <th scope="col">Severity</th>
                <th scope="col">Scope</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {rules.map((rule) => (
                <tr>
                  <th scope="row">{canWrite ? <a href={ruleEditorHref(rule.id)}>{rule.name}</a> : rule.name}</th>
                  <td>
                    <code>{`${rule.metric} ${rule.operator} ${rule.threshold}`}</code>
                    {rule.duration_seconds > 0 && ` for ${rule.duration_seconds} s`}
                  </td>
                  <td>{rule.severity}</td>
                  <td>{rule.database_id === null ? 'every database' : 'this database'}</td>
                  <td>{rule.enabled ? 'enabled' : 'disabled'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
    </section>
  );
}
