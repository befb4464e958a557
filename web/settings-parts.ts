import { ApiError } from './api.js';
import { element } from './format.js';

/** What the settings pages' browser code shares: table cells, a refusal in words, the copy button of a value shown once. */

export const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

export function cell(...children: (Node | string)[]): HTMLTableCellElement {
  const td = element('td');
  td.append(...children);
  return td;
}

/** The API's own words for a refusal (they name the rule: "last owner", "only owners..."). */
export function problemText(error: unknown): string {
  return error instanceof ApiError ? error.message : 'The server could not be reached.';
}

/** A button that copies `input`'s value, saying in `status` whether the browser allowed it. */
export function copyButton(button: HTMLButtonElement, input: HTMLInputElement, status: HTMLElement): void {
  button.addEventListener('click', () => {
    navigator.clipboard.writeText(input.value).then(
      () => (status.textContent = 'Copied.'),
      () => (status.textContent = 'Copying was refused: select the value and copy it yourself.'),
    );
  });
}

/** Shows a one-time value (key, link) selected, ready to copy. */
export function showOnce(panel: HTMLElement, input: HTMLInputElement, status: HTMLElement, value: string): void {
  input.value = value;
  status.textContent = '';
  panel.hidden = false;
  input.focus();
  input.select();
}

/** A confirmation `<dialog>` (ConfirmDialog) that runs `confirmed` when closed with its confirming button. */
export function confirmWith(dialog: HTMLDialogElement, confirmed: () => void): void {
  dialog.returnValue = '';
  dialog.onclose = () => {
    if (dialog.returnValue === 'confirm') confirmed();
  };
  dialog.showModal();
}

/** Runs `call` then redraws with `refresh`; a refusal is said in `problem` in the API's own words. */
export async function refreshAfter(call: () => Promise<unknown>, refresh: () => Promise<void>, problem: HTMLElement): Promise<void> {
  try {
    await call();
    await refresh();
  } catch (error) {
    problem.hidden = false;
    problem.textContent = problemText(error);
  }
}
