import type { AuditLog } from '../audit/audit-log.js';
import type { User } from '../identity/user.js';
import type { SessionClient } from '../sessions/sessions-service.js';
import type { PasswordSignInPolicy } from '../sessions/sign-in-service.js';
import type { SamlSettingsService } from './saml-settings-service.js';

/**
 * Once an organization signs in through SAML, its members use it; owners keep their password as a way
 * back in should the identity provider fail, and each such sign-in is audited.
 */
export class SamlPasswordPolicy implements PasswordSignInPolicy {
  constructor(
    private readonly settings: SamlSettingsService,
    private readonly audit: AuditLog,
  ) {}

  passwordSignIn(user: User, client: SessionClient, now: Date): 'allowed' | 'single_sign_on_required' {
    if (this.settings.configuration(user.org_id)?.enabled !== true) return 'allowed';
    if (user.role !== 'owner') return 'single_sign_on_required';
    const origin = { orgId: user.org_id, actor: { type: 'user' as const, id: user.id }, credential: null, ip: client.ip, userAgent: client.userAgent };
    this.audit.record({ origin, action: 'saml.password_fallback', target: { type: 'user', id: user.id } }, now);
    return 'allowed';
  }
}
