import type { Context } from 'koa';
import type { z } from 'zod';
import { OAuthError } from './oauth-error.js';

/**
 * A token or revocation endpoint's form, parsed into its schema: a repeated or malformed parameter is
 * `invalid_request`, an unknown grant type `unsupported_grant_type` (RFC 6749 §5.2). Unknown
 * parameters are ignored (§3.2).
 */
export function readOAuthForm<S extends z.ZodObject>(ctx: Context, schema: S): z.output<S> {
  const body = (ctx.request.body ?? {}) as Record<string, unknown>;
  const repeated = Object.keys(body).find((name) => Array.isArray(body[name]));
  if (repeated !== undefined) throw new OAuthError('invalid_request', `The parameter ${repeated} is repeated`);
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const name = String(issue.path[0]);
  if (name === 'grant_type' && typeof body.grant_type === 'string') throw new OAuthError('unsupported_grant_type', `grant_type ${body.grant_type} is not supported`);
  throw new OAuthError('invalid_request', body[name] === undefined ? `${name} is required` : `${name} is invalid`);
}

/** Answers the endpoint's work, or its OAuthError as RFC 6749 §5.2 says; never cached (§5.1). */
export function answerOAuth(ctx: Context, work: () => unknown): void {
  ctx.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' });
  try {
    // An empty answer (revocation) is '' so that it stays 200 (RFC 7009 §2.2): Koa makes a null body 204.
    ctx.body = work() ?? '';
    ctx.status = 200;
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    ctx.status = error.status;
    if (error.status === 401 && /^Basic /i.test(ctx.get('Authorization'))) ctx.set('WWW-Authenticate', 'Basic realm="dbmon"');
    ctx.body = error.toBody();
  }
}
