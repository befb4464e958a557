import { showLocalTimes } from './format.js';

/**
 * Brings the page's server-rendered sections (by id) up to date without reloading: the page is read
 * again as it was asked for (same query) and each section whose content changed is swapped in, unless
 * the reader is at work in it (focus inside, or its dialog open).
 */
export async function refreshSections(ids: readonly string[]): Promise<void> {
  const response = await fetch(location.href, { headers: { accept: 'text/html' }, credentials: 'same-origin', redirect: 'manual' });
  if (response.status !== 200) throw new Error(response.type === 'opaqueredirect' ? 'your session has ended: reload the page to sign in again' : `the page answered ${response.status}`);
  const fresh = new DOMParser().parseFromString(await response.text(), 'text/html');
  showLocalTimes(fresh);
  for (const id of ids) {
    const shown = document.getElementById(id);
    const read = fresh.getElementById(id);
    if (shown === null || read === null || shown.contains(document.activeElement) || shown.querySelector('dialog[open]') !== null) continue;
    if (shown.innerHTML !== read.innerHTML) shown.replaceWith(document.importNode(read, true));
  }
}
