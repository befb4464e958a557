import type { Middleware } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { InvalidRequestError } from '../errors.js';

// DELETE too: removing a second factor carries the password (CONTRACT.md, two-factor authentication).
const methodsWithBody = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * JSON bodies only, but url-encoded ones on `formPaths` (the OAuth endpoints): any other content type
 * with a body is refused before parsing. Any JSON value parses (so `null` is not called invalid JSON);
 * a value that is not an object is then refused as such. A request of another method (GET) goes on
 * at once: none of this applies to it.
 */
export function jsonBody(limitBytes: number, formPaths: ReadonlySet<string> = new Set()): Middleware {
  const requireJson: Middleware = async (ctx, next) => {
    const hasBody = (ctx.request.length ?? 0) > 0 || ctx.get('Transfer-Encoding') !== '';
    const expected = formPaths.has(ctx.path) ? 'application/x-www-form-urlencoded' : 'application/json';
    if (hasBody && !ctx.is(expected)) {
      throw new InvalidRequestError('unsupported_content_type', `Send the request body as ${expected}`, 'Content-Type');
    }
    await next();
  };
  const parse = koaBody({
    json: true,
    jsonStrict: false,
    urlencoded: true,
    text: false,
    multipart: false,
    jsonLimit: limitBytes,
    formLimit: limitBytes,
    parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
    onError: (error) => {
      throw error;
    },
  }) as Middleware;
  const requireObject: Middleware = async (ctx, next) => {
    if (ctx.is('application/json')) {
      const body: unknown = ctx.request.body;
      // co-body hands back '' for an empty body when not strict: that is no body, an empty object.
      if (body === '') ctx.request.body = {};
      else if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw new InvalidRequestError('invalid_parameter', 'The request body must be a JSON object');
      }
    }
    await next();
  };
  return (ctx, next) => (methodsWithBody.has(ctx.method) ? requireJson(ctx, () => parse(ctx, () => requireObject(ctx, next))) : next());
}
