import { callApi, getAll } from './api.js';
import { element, timeElement } from './format.js';
import { byId, cell, confirmWith, copyButton, problemText, showOnce } from './settings-parts.js';

/** `/settings/users` (owners and admins): invites (the one-time link shown), changes roles, disables and removes users through /v1/users. */

interface User {
  id: string;
  email: string;
  name: string;
  role: string;
  status: 'invited' | 'active' | 'disabled';
  two_factor_enabled: boolean;
  created_at: string;
}

const form = byId<HTMLFormElement>('invite-form');
const formError = byId<HTMLElement>('invite-error');
const created = byId<HTMLElement>('invitation-created');
const link = byId<HTMLInputElement>('invitation-value');
const copied = byId<HTMLElement>('invitation-copied');
const rows = byId<HTMLTableSectionElement>('user-rows');
const status = byId<HTMLElement>('users-status');
const removeDialog = byId<HTMLDialogElement>('user-remove');
const removeText = byId<HTMLElement>('user-remove-text');
/** The roles the viewer may give (the page leaves owner out for an admin). */
const offered = (form.closest<HTMLElement>('[data-roles]')?.dataset.roles ?? '').split(' ');

function roleControl(user: User): Node {
  if (!offered.includes(user.role)) return document.createTextNode(user.role);
  const select = element('select');
  select.setAttribute('aria-label', `Role of ${user.email}`);
  for (const role of offered) select.append(new Option(role, role, false, role === user.role));
  select.addEventListener('change', () => void act(() => callApi('PATCH', `/v1/users/${encodeURIComponent(user.id)}`, { role: select.value })));
  return select;
}

function actionButton(text: string, label: string, action: () => void): HTMLButtonElement {
  const button = element('button', 'secondary', text);
  button.type = 'button';
  button.setAttribute('aria-label', label);
  button.addEventListener('click', action);
  return button;
}

async function refresh(): Promise<void> {
  const users = await getAll<User>('/v1/users');
  rows.replaceChildren(
    ...users.map((user) => {
      const row = element('tr');
      const name = element('th', undefined, user.name);
      name.scope = 'row';
      const path = `/v1/users/${encodeURIComponent(user.id)}`;
      const nextStatus = user.status === 'disabled' ? 'active' : 'disabled';
      const actions = element('div', 'actions');
      actions.append(
        actionButton(nextStatus === 'disabled' ? 'Disable' : 'Enable', `${nextStatus === 'disabled' ? 'Disable' : 'Enable'} ${user.email}`, () => void act(() => callApi('PATCH', path, { status: nextStatus }))),
        actionButton('Remove', `Remove ${user.email}`, () => {
          removeText.textContent = `${user.email} loses the account, with their sessions and personal keys (and the keys made through them).`;
          confirmWith(removeDialog, () => void act(() => callApi('DELETE', path)));
        }),
      );
      row.append(
        name,
        cell(user.email),
        cell(roleControl(user)),
        cell(user.status),
        cell(user.two_factor_enabled ? 'on' : 'off'),
        cell(timeElement(new Date(user.created_at))),
        cell(actions),
      );
      return row;
    }),
  );
  status.textContent = `${users.length} ${users.length === 1 ? 'user' : 'users'}.`;
}

/** Runs a change and draws the list again; a refusal (the last owner, an owner's role) is said, and the list shows what the API holds. */
async function act(call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
    await refresh();
  } catch (error) {
    await refresh().catch(() => undefined);
    status.textContent = problemText(error);
  }
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  formError.hidden = true;
  const fields = new FormData(form);
  callApi<{ invitation: { url: string } }>('POST', '/v1/users', { email: String(fields.get('email')), role: String(fields.get('role')) }).then(
    async (invited) => {
      form.reset();
      showOnce(created, link, copied, invited.invitation.url);
      await refresh();
    },
    (error: unknown) => {
      formError.hidden = false;
      formError.textContent = problemText(error);
    },
  );
});

copyButton(byId('invitation-copy'), link, copied);
void act(refresh);
