import type { Context } from 'koa';
import { AuthenticationError } from '../../errors.js';
import { accessTokenPrefix, type OAuthTokensService } from '../oauth/oauth-tokens-service.js';
import type { AuthResult, CredentialResolver } from './credential-resolver.js';

/** `Authorization: Bearer dbm_oat_...`: an OAuth access token. Any other Authorization header is the API key resolver's. */
export class OAuthTokenResolver implements CredentialResolver {
  constructor(private readonly tokens: OAuthTokensService) {}

  resolve(ctx: Context, now: Date): AuthResult | undefined {
    const header = ctx.get('Authorization');
    // Most headers hold an API key: none that lacks the prefix is parsed.
    if (!header.includes(accessTokenPrefix)) return undefined;
    const match = /^Bearer +(\S+)$/i.exec(header);
    if (match === null || !match[1]!.startsWith(accessTokenPrefix)) return undefined;
    try {
      return { principal: this.tokens.authenticate(match[1]!, now) };
    } catch (error) {
      if (error instanceof AuthenticationError) return { error };
      throw error;
    }
  }
}
