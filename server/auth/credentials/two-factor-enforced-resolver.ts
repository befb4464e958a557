import type { Context } from 'koa';
import { PermissionError } from '../../errors.js';
import type { TwoFactorStandings } from '../two-factor/two-factor-standings.js';
import type { AuthResult, CredentialResolver } from './credential-resolver.js';

/** What a member past the two-factor deadline may still do through the API: read who they are (and the CSRF token), enroll, and sign out (end their own sessions). */
function openToMembersWithoutFactor(ctx: Context): boolean {
  return (
    ctx.path.startsWith('/v1/user/two-factor/') ||
    (ctx.path === '/v1/user' && ctx.method === 'GET') ||
    (ctx.method === 'DELETE' && /^\/v1\/sessions\/[^/]+$/.test(ctx.path))
  );
}

/**
 * Another resolver whose users' sessions, personal tokens and OAuth access tokens are refused (403 two_factor_required)
 * once their organization requires a second factor they still lack past its grace period.
 */
export class TwoFactorEnforcedResolver implements CredentialResolver {
  constructor(
    private readonly resolver: CredentialResolver,
    private readonly standings: TwoFactorStandings,
  ) {}

  resolve(ctx: Context, now: Date): AuthResult | undefined {
    const result = this.resolver.resolve(ctx, now);
    if (result === undefined || 'error' in result) return result;
    const { principal } = result;
    if (principal.actor.kind !== 'user') return result;
    const standing = this.standings.of(principal.orgId, principal.actor.userId, now);
    if (standing.state !== 'required' || openToMembersWithoutFactor(ctx)) return result;
    return {
      error: new PermissionError(
        `Your organization requires a second factor since ${standing.deadline.toISOString()}; set one up (POST /v1/user/two-factor/totp) to go on`,
        'two_factor_required',
      ),
    };
  }
}
