import { HostCookie } from '../../http/host-cookie.js';

/**
 * The session cookie: `__Host-dbmon_session` under an https `server.public_url`, else `dbmon_session`.
 * It ends with the browser, and the server ends it sooner by the organization's settings.
 */
export class SessionCookie extends HostCookie {
  constructor(publicUrl: string) {
    super(publicUrl, 'dbmon_session');
  }
}
