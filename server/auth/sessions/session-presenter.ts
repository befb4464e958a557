import UAParser from 'ua-parser-js';
import type { LocateAddress } from './session-location.js';
import type { ListedSession } from './sessions-service.js';

/** A session as GET /v1/sessions shows it; `current` marks the one making the request. */
export function presentSession(session: ListedSession, currentId: string | undefined, locate: LocateAddress) {
  const agent = new UAParser(session.user_agent).getResult();
  return {
    id: session.id,
    device: agent.device.type ?? 'desktop',
    browser: describe(agent.browser.name, agent.browser.major),
    os: describe(agent.os.name, agent.os.version),
    ip: session.ip,
    location: locate(session.ip),
    created_at: session.created_at,
    last_active_at: session.last_active_at,
    expires_at: session.expires_at,
    current: session.id === currentId,
  };
}

function describe(name: string | undefined, version: string | undefined): string | null {
  if (name === undefined) return null;
  return version === undefined ? name : `${name} ${version}`;
}
