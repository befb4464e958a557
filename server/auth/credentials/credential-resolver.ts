import type { Context } from 'koa';
import type { ApiError } from '../../errors.js';
import type { Principal } from '../principal.js';

/** A resolved credential, or why the one presented is refused. */
export type AuthResult = { principal: Principal } | { error: ApiError };

/** Turns one kind of credential into a principal. */
export interface CredentialResolver {
  /** Undefined when the request carries no credential of this kind, so the next resolver is asked. */
  resolve(ctx: Context, now: Date): AuthResult | undefined;
}
