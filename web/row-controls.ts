import { ApiError } from './api.js';
import { element } from './format.js';

/** A button in a table row: its text, and a label that names what it acts on for screen readers. */
export function rowButton(text: string, label: string, onClick: () => void): HTMLButtonElement {
  const button = element('button', 'secondary', text);
  button.type = 'button';
  button.setAttribute('aria-label', label);
  button.addEventListener('click', onClick);
  return button;
}

/** Says in `target` why a change was refused: the API's own message when it gave one. */
export function showProblem(target: HTMLElement, error: unknown): void {
  target.hidden = false;
  target.textContent = error instanceof ApiError ? error.message : `The request failed: ${String(error)}`;
}
