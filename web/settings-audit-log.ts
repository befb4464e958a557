import { getAll, getJson } from './api.js';
import { element, timeElement } from './format.js';
import { byId, cell, problemText } from './settings-parts.js';

/** `/settings/audit-log`: /v1/audit-log a page at a time, newest first, with the filters of its query; actors named from /v1/users. */

interface AuditEntry {
  action: string;
  actor: { type: string; id: string | null } | null;
  target: { type: string; id: string } | null;
  ip: string | null;
  details: Record<string, unknown>;
  created_at: string;
}

const perPage = 50;
const form = byId<HTMLFormElement>('audit-filters');
const actorSelect = byId<HTMLSelectElement>('audit-actor');
const rows = byId<HTMLTableSectionElement>('audit-rows');
const status = byId<HTMLElement>('audit-status');
const newer = byId<HTMLButtonElement>('audit-newer');
const older = byId<HTMLButtonElement>('audit-older');
const names = new Map<string, string>();
let page = 1;

function actorText(actor: AuditEntry['actor']): string {
  if (actor === null) return 'nobody proven';
  if (actor.id === null) return actor.type;
  return names.get(actor.id) ?? `${actor.type} ${actor.id}`;
}

/** The filters as /v1/audit-log's query; the datetime-local fields are in the browser's time zone. */
function query(): URLSearchParams {
  const fields = new FormData(form);
  const params = new URLSearchParams({ page: String(page), per_page: String(perPage) });
  for (const name of ['action', 'actor']) {
    const value = String(fields.get(name) ?? '');
    if (value !== '') params.set(name, value);
  }
  for (const name of ['from', 'to']) {
    const value = String(fields.get(name) ?? '');
    if (value !== '') params.set(name, new Date(value).toISOString());
  }
  return params;
}

async function show(): Promise<void> {
  status.textContent = 'Loading…';
  try {
    const answer = await getJson<{ data: AuditEntry[]; pagination: { total: number } }>(`/v1/audit-log?${query()}`);
    rows.replaceChildren(
      ...answer.data.map((entry) => {
        const row = element('tr');
        row.append(
          cell(timeElement(new Date(entry.created_at))),
          cell(element('code', undefined, entry.action)),
          cell(actorText(entry.actor)),
          cell(entry.target === null ? '' : (names.get(entry.target.id) ?? `${entry.target.type} ${entry.target.id}`)),
          cell(entry.ip ?? ''),
          cell(Object.keys(entry.details).length === 0 ? '' : JSON.stringify(entry.details)),
        );
        return row;
      }),
    );
    const first = (page - 1) * perPage;
    status.textContent = answer.pagination.total === 0 ? 'No entries match.' : `Entries ${first + 1} to ${first + answer.data.length} of ${answer.pagination.total}, newest first.`;
    newer.disabled = page === 1;
    older.disabled = first + answer.data.length >= answer.pagination.total;
  } catch (error) {
    status.textContent = problemText(error);
  }
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  page = 1;
  void show();
});
newer.addEventListener('click', () => {
  page -= 1;
  void show();
});
older.addEventListener('click', () => {
  page += 1;
  void show();
});

getAll<{ id: string; name: string; email: string }>('/v1/users')
  .then((users) => {
    for (const user of users) {
      names.set(user.id, `${user.name} (${user.email})`);
      actorSelect.append(new Option(`${user.name} (${user.email})`, user.id));
    }
  })
  .catch(() => undefined)
  .finally(() => void show());
