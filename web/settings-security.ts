import { callApi, getJson } from './api.js';
import { byId, problemText } from './settings-parts.js';

/** `/settings/security`: the organization's settings from /v1/org/settings in a form; saving sends only what changed. */

interface SecuritySettings {
  session_idle_timeout_minutes: number;
  session_max_duration_hours: number;
  max_concurrent_sessions: number;
  require_two_factor: boolean;
  two_factor_grace_period_days: number;
  ip_allowlist: string[];
}

const numbers = ['session_idle_timeout_minutes', 'session_max_duration_hours', 'max_concurrent_sessions', 'two_factor_grace_period_days'] as const;
const form = byId<HTMLFormElement>('security-form');
const status = byId<HTMLElement>('security-status');
const requireTwoFactor = byId<HTMLInputElement>('require_two_factor');
const allowlist = byId<HTMLTextAreaElement>('ip_allowlist');
const input = (name: string) => byId<HTMLInputElement>(name);

let saved: SecuritySettings | undefined;

function show(settings: SecuritySettings): void {
  saved = settings;
  for (const name of numbers) input(name).value = String(settings[name]);
  requireTwoFactor.checked = settings.require_two_factor;
  allowlist.value = settings.ip_allowlist.join('\n');
  form.removeAttribute('aria-busy');
}

/** The form's values that differ from the saved ones: an unchanged allowlist is not sent (it is refused below the enterprise plan). */
function changes(previous: SecuritySettings): Partial<SecuritySettings> {
  const change: Partial<SecuritySettings> = {};
  for (const name of numbers) {
    const value = Number(input(name).value);
    if (value !== previous[name]) change[name] = value;
  }
  if (requireTwoFactor.checked !== previous.require_two_factor) change.require_two_factor = requireTwoFactor.checked;
  const entries = allowlist.value
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  if (entries.join('\n') !== previous.ip_allowlist.join('\n')) change.ip_allowlist = entries;
  return change;
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  if (saved === undefined) return;
  const change = changes(saved);
  if (Object.keys(change).length === 0) {
    status.textContent = 'Nothing changed.';
    return;
  }
  status.textContent = 'Saving…';
  callApi<SecuritySettings>('PATCH', '/v1/org/settings', change).then(
    (settings) => {
      show(settings);
      status.textContent = 'Saved.';
    },
    (error: unknown) => (status.textContent = problemText(error)),
  );
});

getJson<SecuritySettings>('/v1/org/settings').then(
  (settings) => {
    show(settings);
    status.textContent = '';
  },
  (error: unknown) => (status.textContent = problemText(error)),
);
