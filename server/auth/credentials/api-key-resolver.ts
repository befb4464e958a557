import type { Context } from 'koa';
import { AuthenticationError } from '../../errors.js';
import type { ApiKeysService } from '../api-keys/api-keys-service.js';
import type { AuthResult, CredentialResolver } from './credential-resolver.js';

/** `Authorization: Bearer dbm_pat_...` or `dbm_sak_...`. */
export class ApiKeyResolver implements CredentialResolver {
  constructor(private readonly apiKeys: ApiKeysService) {}

  resolve(ctx: Context, now: Date): AuthResult | undefined {
    const header = ctx.get('Authorization');
    if (header === '') return undefined;
    const match = /^Bearer +(\S+)$/i.exec(header);
    if (match === null) {
      return { error: new AuthenticationError('malformed_api_key', 'The Authorization header must be Bearer <key>') };
    }
    try {
      return { principal: this.apiKeys.authenticate(match[1]!, now) };
    } catch (error) {
      if (error instanceof AuthenticationError) return { error };
      throw error;
    }
  }
}
