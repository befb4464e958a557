import { callApi, getAll } from './api.js';
import { element, timeElement } from './format.js';
import { byId, cell, confirmWith, copyButton, refreshAfter, showOnce } from './settings-parts.js';

/** `/settings/oauth-applications`: lists the organization's applications, registers one (its secret shown once) and deletes one after a confirmation. */

interface OAuthApplication {
  id: string;
  name: string;
  client_id: string;
  confidential: boolean;
  redirect_uris: string[];
  scopes: string[];
  created_at: string;
}

const form = byId<HTMLFormElement>('oauth-app-form');
const formError = byId<HTMLElement>('oauth-app-error');
const created = byId<HTMLElement>('oauth-app-created');
const secret = byId<HTMLInputElement>('oauth-app-value');
const copied = byId<HTMLElement>('oauth-app-copied');
const rows = byId<HTMLTableSectionElement>('oauth-app-rows');
const table = byId<HTMLTableElement>('oauth-apps-table');
const status = byId<HTMLElement>('oauth-apps-status');
const deleteDialog = byId<HTMLDialogElement>('oauth-app-delete');
const deleteText = byId<HTMLElement>('oauth-app-delete-text');

async function refresh(): Promise<void> {
  const applications = await getAll<OAuthApplication>('/v1/oauth/applications');
  rows.replaceChildren(
    ...applications.map((application) => {
      const row = element('tr');
      const name = element('th', undefined, application.name);
      name.scope = 'row';
      const remove = element('button', 'secondary', 'Delete');
      remove.type = 'button';
      remove.setAttribute('aria-label', `Delete ${application.name}`);
      remove.addEventListener('click', () => confirmDelete(application));
      const uris = element('ul');
      uris.append(...application.redirect_uris.map((uri) => element('li', undefined, uri)));
      row.append(
        name,
        cell(element('code', undefined, application.client_id)),
        cell(application.confidential ? 'confidential' : 'public'),
        cell(application.scopes.join(', ')),
        cell(uris),
        cell(timeElement(new Date(application.created_at))),
        cell(remove),
      );
      return row;
    }),
  );
  table.hidden = applications.length === 0;
  status.textContent = applications.length === 0 ? 'No applications yet.' : `${applications.length} ${applications.length === 1 ? 'application' : 'applications'}.`;
}

function confirmDelete(application: OAuthApplication): void {
  deleteText.textContent = `"${application.name}" (${application.client_id}) is removed: every token its users granted stops working at once.`;
  confirmWith(deleteDialog, () =>
    void act(async () => {
      await callApi('DELETE', `/v1/oauth/applications/${encodeURIComponent(application.id)}`);
      if (created.dataset.applicationId === application.id) created.hidden = true;
    }, status),
  );
}

const act = (call: () => Promise<unknown>, problem: HTMLElement) => refreshAfter(call, refresh, problem);

form.addEventListener('submit', (event) => {
  event.preventDefault();
  formError.hidden = true;
  created.hidden = true;
  const fields = new FormData(form);
  const body = {
    name: String(fields.get('name')),
    redirect_uris: String(fields.get('redirect_uris'))
      .split('\n')
      .map((uri) => uri.trim())
      .filter((uri) => uri !== ''),
    confidential: fields.get('type') === 'confidential',
    scopes: fields.getAll('scopes').map(String),
  };
  void act(async () => {
    const made = await callApi<OAuthApplication & { client_secret?: string }>('POST', '/v1/oauth/applications', body);
    created.dataset.applicationId = made.id;
    form.reset();
    if (made.client_secret !== undefined) showOnce(created, secret, copied, made.client_secret);
  }, formError);
});

copyButton(byId('oauth-app-copy'), secret, copied);

void act(async () => undefined, status);
