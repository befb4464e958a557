import { callApi, getAll } from './api.js';
import { element, timeElement } from './format.js';
import { byId, cell, problemText } from './settings-parts.js';

/** `/settings/sessions`: the viewer's sessions from /v1/sessions, this one marked; ends one, or all but this one. */

interface Session {
  id: string;
  device: string;
  browser: string | null;
  os: string | null;
  ip: string;
  location: { network: string; country: string | null; city: string | null } | null;
  created_at: string;
  last_active_at: string;
  current: boolean;
}

const rows = byId<HTMLTableSectionElement>('session-rows');
const status = byId<HTMLElement>('sessions-status');

function place(session: Session): string {
  const location = session.location;
  if (location === null) return `${session.ip} (place not known)`;
  if (location.network !== 'public') return `${session.ip} (${location.network} network)`;
  const named = [location.city, location.country].filter((part) => part !== null).join(', ');
  return named === '' ? session.ip : `${named} (${session.ip})`;
}

async function refresh(): Promise<void> {
  const sessions = await getAll<Session>('/v1/sessions');
  rows.replaceChildren(
    ...sessions.map((session) => {
      const row = element('tr');
      const device = element('th', undefined, [session.device, session.os].filter((part) => part !== null).join(', '));
      device.scope = 'row';
      const action = session.current ? element('strong', undefined, 'This session') : element('button', 'secondary', 'Sign out');
      if (action instanceof HTMLButtonElement) {
        action.type = 'button';
        action.setAttribute('aria-label', `Sign out the session of ${device.textContent} from ${place(session)}`);
        action.addEventListener('click', () => void act(() => callApi('DELETE', `/v1/sessions/${encodeURIComponent(session.id)}`)));
      }
      row.append(device, cell(session.browser ?? 'not known'), cell(place(session)), cell(timeElement(new Date(session.created_at))), cell(timeElement(new Date(session.last_active_at))), cell(action));
      return row;
    }),
  );
  const others = sessions.filter((session) => !session.current).length;
  status.textContent = others === 0 ? 'This is your only session.' : `This session and ${others} ${others === 1 ? 'other' : 'others'}.`;
}

async function act(call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
    await refresh();
  } catch (error) {
    status.textContent = problemText(error);
  }
}

byId<HTMLButtonElement>('sign-out-others').addEventListener('click', () => void act(() => callApi('POST', '/v1/sessions/revoke-others')));
void act(refresh);
