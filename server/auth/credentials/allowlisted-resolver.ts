import type { Context } from 'koa';
import { requestClient } from '../../http/request-client.js';
import type { NetworkAccess } from '../organizations/network-access.js';
import type { AuthResult, CredentialResolver } from './credential-resolver.js';

/** Another resolver whose credentials are refused from outside their organization's IP allowlist (`ctx.ip`, as the trusted proxies report it). */
export class AllowlistedResolver implements CredentialResolver {
  constructor(
    private readonly resolver: CredentialResolver,
    private readonly network: NetworkAccess,
  ) {}

  resolve(ctx: Context, now: Date): AuthResult | undefined {
    const result = this.resolver.resolve(ctx, now);
    if (result === undefined || 'error' in result) return result;
    const refusal = this.network.refusal(result.principal, requestClient(ctx), now);
    return refusal === undefined ? result : { error: refusal };
  }
}
