import { ApiError, callApi } from './api.js';
import { showLocalTimes } from './format.js';

/**
 * The database page's server-rendered sections (and a statement's page): times shown in the browser's
 * time zone, and the few changes they offer, each sent to /v1 (which checks the caller's role again).
 */

showLocalTimes(document);

const problemText = (error: unknown): string => (error instanceof ApiError ? error.message : 'The server could not be reached; try again.');

function showProblem(place: HTMLElement | null, error: unknown): void {
  if (place === null) return;
  place.textContent = problemText(error);
  place.hidden = false;
}

/** Runs `action` with `button` disabled; a problem is shown in `problem`, success reloads the page (its data is the server's). */
async function act(button: HTMLButtonElement, problem: HTMLElement | null, action: () => Promise<unknown>, then: () => void = () => location.reload()): Promise<void> {
  button.disabled = true;
  try {
    await action();
    then();
  } catch (error) {
    showProblem(problem, error);
  } finally {
    button.disabled = false;
  }
}

const page = document.querySelector<HTMLElement>('#database-page, #query-page');
const databasePath = `/v1/databases/${encodeURIComponent(page?.dataset.databaseId ?? '')}`;

document.addEventListener('click', (event) => {
  const button = (event.target as Element).closest<HTMLButtonElement>('button');
  if (button === null) return;
  const { opens, closes, apply, dismiss, monitoring } = button.dataset;
  if (opens !== undefined) document.querySelector<HTMLDialogElement>(`#${CSS.escape(opens)}`)?.showModal();
  if (closes !== undefined) document.querySelector<HTMLDialogElement>(`#${CSS.escape(closes)}`)?.close();
  if (apply !== undefined) void act(button, button.closest('dialog')!.querySelector('.alert'), () => callApi('POST', `/v1/optimizations/${encodeURIComponent(apply)}/apply`));
  if (dismiss !== undefined) void act(button, button.closest('li')!.querySelector(':scope > .alert'), () => callApi('POST', `/v1/optimizations/${encodeURIComponent(dismiss)}/dismiss`));
  if (monitoring !== undefined) {
    void act(button, document.querySelector('#connection .alert'), () => callApi('PUT', databasePath, { monitoring: { enabled: monitoring === 'resume' } }));
  }
  if (button.id === 'request-optimization') {
    const status = document.getElementById('optimization-requested')!;
    void act(
      button,
      status,
      () => callApi('POST', `${databasePath}/optimize`, { query_id: button.dataset.queryId }),
      () => {
        status.replaceChildren('Requested: the agent analyzes it within a minute. ');
        const link = document.createElement('a');
        link.href = `/databases/${encodeURIComponent(button.dataset.databaseId!)}#optimizations`;
        link.textContent = 'See the optimizations';
        status.append(link);
      },
    );
  }
});

const form = document.querySelector<HTMLFormElement>('#connection-form');
form?.addEventListener('submit', (event) => {
  event.preventDefault();
  const input = (name: string) => form.elements.namedItem(name) as HTMLInputElement | null;
  const value = (name: string) => input(name)?.value ?? '';
  const typed = value('password');
  // Only a typed password or its removal is sent: the stored one is never read back.
  const password = input('clear_password')?.checked === true ? null : typed === '' ? undefined : typed;
  const connection = {
    host: value('host'),
    port: Number(value('port')),
    database: value('database'),
    username: value('username'),
    ssl: input('ssl')?.checked === true,
    ...(password !== undefined && { password }),
  };
  const body = { connection, monitoring: { interval_seconds: Number(value('interval_seconds')) } };
  void act(form.querySelector('button[type="submit"]')!, form.querySelector('.alert'), () => callApi('PUT', databasePath, body));
});
