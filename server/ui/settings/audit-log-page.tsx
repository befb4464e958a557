import { auditActions } from '../../auth/audit/audit-log.js';
import { ScrollRegion } from '../scroll-region.js';

/** `/settings/audit-log` (owners and admins): the organization's audit log, a page at a time, filtered by action, actor and time (web/settings-audit-log.ts, from /v1/audit-log). */
export function AuditLogPage() {
  return (
    <>
      <form id="audit-filters" class="filters">
        <div class="filter">
          <label for="audit-action">Action</label>
          <select id="audit-action" name="action">
            <option value="">any</option>
            {auditActions.map((action) => (
              <option value={action}>{action}</option>
            ))}
          </select>
        </div>
        <div class="filter">
          <label for="audit-actor">Actor</label>
          <select id="audit-actor" name="actor">
            <option value="">anyone</option>
          </select>
        </div>
        <div class="filter">
          <label for="audit-from">From (your time zone)</label>
          <input id="audit-from" name="from" type="datetime-local" />
        </div>
        <div class="filter">
          <label for="audit-to">Until</label>
          <input id="audit-to" name="to" type="datetime-local" />
        </div>
        <button type="submit">Show</button>
      </form>
      <p role="status" id="audit-status">
        Loading…
      </p>
      <ScrollRegion label="Audit entries">
        <table id="audit-table">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Action</th>
              <th scope="col">Actor</th>
              <th scope="col">Target</th>
              <th scope="col">Address</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody id="audit-rows"></tbody>
        </table>
      </ScrollRegion>
      <p class="actions">
        <button type="button" class="secondary" id="audit-newer" disabled>
          Newer
        </button>
        <button type="button" class="secondary" id="audit-older" disabled>
          Older
        </button>
      </p>
    </>
  );
}
