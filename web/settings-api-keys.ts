import { callApi, getAll } from './api.js';
import { element, timeElement } from './format.js';
import { byId, cell, confirmWith, copyButton, refreshAfter, showOnce } from './settings-parts.js';

/** `/settings/api-keys`: lists the keys, makes one (its value shown once, with a copy button) and revokes one after a confirmation. */

interface ApiKey {
  id: string;
  name: string;
  permission: string;
  scopes: string[];
  prefix: string;
  last4: string;
  expires_at: string | null;
  last_used_at: string | null;
  created_at: string;
  revoked_at: string | null;
}

const form = byId<HTMLFormElement>('api-key-form');
const formError = byId<HTMLElement>('api-key-error');
const created = byId<HTMLElement>('api-key-created');
const value = byId<HTMLInputElement>('api-key-value');
const copied = byId<HTMLElement>('api-key-copied');
const rows = byId<HTMLTableSectionElement>('api-key-rows');
const table = byId<HTMLTableElement>('api-keys-table');
const status = byId<HTMLElement>('api-keys-status');
const revokeDialog = byId<HTMLDialogElement>('api-key-revoke');
const revokeText = byId<HTMLElement>('api-key-revoke-text');

const timeOrWords = (at: string | null, words: string) => (at === null ? document.createTextNode(words) : timeElement(new Date(at)));

async function refresh(): Promise<void> {
  const keys = (await getAll<ApiKey>('/v1/api-keys')).filter((key) => key.revoked_at === null);
  rows.replaceChildren(
    ...keys.map((key) => {
      const row = element('tr');
      const name = element('th', undefined, key.name);
      name.scope = 'row';
      const revoke = element('button', 'secondary', 'Revoke');
      revoke.type = 'button';
      revoke.setAttribute('aria-label', `Revoke ${key.name}`);
      revoke.addEventListener('click', () => confirmRevoke(key));
      const expired = key.expires_at !== null && Date.parse(key.expires_at) <= Date.now();
      row.append(
        name,
        cell(element('code', undefined, `${key.prefix}…${key.last4}`)),
        cell(key.permission),
        cell(key.scopes.join(', ')),
        cell(timeOrWords(key.expires_at, 'never'), expired ? ' (expired)' : ''),
        cell(timeOrWords(key.last_used_at, 'never used')),
        cell(timeElement(new Date(key.created_at))),
        cell(revoke),
      );
      return row;
    }),
  );
  table.hidden = keys.length === 0;
  status.textContent = keys.length === 0 ? 'No keys yet.' : `${keys.length} ${keys.length === 1 ? 'key' : 'keys'}.`;
}

function confirmRevoke(key: ApiKey): void {
  revokeText.textContent = `"${key.name}" (${key.prefix}…${key.last4}) stops working at once, and so does every key made with it.`;
  confirmWith(revokeDialog, () =>
    void act(async () => {
      await callApi('DELETE', `/v1/api-keys/${encodeURIComponent(key.id)}`);
      if (created.dataset.keyId === key.id) created.hidden = true;
    }, status),
  );
}

const act = (call: () => Promise<unknown>, problem: HTMLElement) => refreshAfter(call, refresh, problem);

form.addEventListener('submit', (event) => {
  event.preventDefault();
  formError.hidden = true;
  const fields = new FormData(form);
  const expiresOn = String(fields.get('expires_on') ?? '');
  const body = {
    name: String(fields.get('name')),
    permission: String(fields.get('permission')),
    scopes: fields.getAll('scopes').map(String),
    // The end of the chosen day, in the browser's time zone.
    ...(expiresOn !== '' && { expires_at: new Date(`${expiresOn}T23:59:59`).toISOString() }),
  };
  void act(async () => {
    const made = await callApi<{ id: string; key: string }>('POST', '/v1/api-keys', body);
    created.dataset.keyId = made.id;
    form.reset();
    showOnce(created, value, copied, made.key);
  }, formError);
});

copyButton(byId('api-key-copy'), value, copied);

void act(async () => undefined, status);
