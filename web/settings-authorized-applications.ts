import { callApi, getAll } from './api.js';
import { element, timeElement } from './format.js';
import { byId, cell, confirmWith, refreshAfter } from './settings-parts.js';

/** `/settings/authorized-applications`: the applications the viewer authorized, each revoked after a confirmation. */

interface Authorization {
  id: string;
  application: { name: string; client_id: string; organization: string };
  scopes: string[];
  created_at: string;
}

const rows = byId<HTMLTableSectionElement>('authorization-rows');
const table = byId<HTMLTableElement>('authorizations-table');
const status = byId<HTMLElement>('authorizations-status');
const revokeDialog = byId<HTMLDialogElement>('authorization-revoke');
const revokeText = byId<HTMLElement>('authorization-revoke-text');

async function refresh(): Promise<void> {
  const authorizations = await getAll<Authorization>('/v1/user/authorizations');
  rows.replaceChildren(
    ...authorizations.map((authorization) => {
      const row = element('tr');
      const name = element('th', undefined, authorization.application.name);
      name.scope = 'row';
      const revoke = element('button', 'secondary', 'Revoke');
      revoke.type = 'button';
      revoke.setAttribute('aria-label', `Revoke ${authorization.application.name}`);
      revoke.addEventListener('click', () => confirmRevoke(authorization));
      row.append(name, cell(authorization.application.organization), cell(authorization.scopes.join(', ')), cell(timeElement(new Date(authorization.created_at))), cell(revoke));
      return row;
    }),
  );
  table.hidden = authorizations.length === 0;
  status.textContent = authorizations.length === 0 ? 'You have authorized no application.' : `${authorizations.length} ${authorizations.length === 1 ? 'application' : 'applications'}.`;
}

function confirmRevoke(authorization: Authorization): void {
  revokeText.textContent = `"${authorization.application.name}" can no longer use the API for you; its tokens stop working at once.`;
  confirmWith(revokeDialog, () => void refreshAfter(() => callApi('DELETE', `/v1/user/authorizations/${encodeURIComponent(authorization.id)}`), refresh, status));
}

void refreshAfter(async () => undefined, refresh, status);
