import type { Middleware } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { InvalidRequestError } from '../errors.js';

// DELETE too: removing a second factor carries the password (CONTRACT.md, two-factor authentication).
const methodsWithBody = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * JSON bodies only: any other content type with a body is refused before parsing. Any JSON value
 * parses (so `null` is not called invalid JSON); a value that is not an object is then refused as such.
 */
export function jsonBody(limitBytes: number): Middleware[] {
  const requireJson: Middleware = async (ctx, next) => {
    const hasBody = (ctx.request.length ?? 0) > 0 || ctx.get('Transfer-Encoding') !== '';
    if (methodsWithBody.has(ctx.method) && hasBody && !ctx.is('application/json')) {
      throw new InvalidRequestError('unsupported_content_type', 'Send the request body as application/json', 'Content-Type');
    }
    await next();
  };
  const parse = koaBody({
    json: true,
    jsonStrict: false,
    urlencoded: false,
    text: false,
    multipart: false,
    jsonLimit: limitBytes,
    parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
    onError: (error) => {
      throw error;
    },
  }) as Middleware;
  const requireObject: Middleware = async (ctx, next) => {
    if (methodsWithBody.has(ctx.method) && ctx.is('application/json')) {
      const body: unknown = ctx.request.body;
      // co-body hands back '' for an empty body when not strict: that is no body, an empty object.
      if (body === '') ctx.request.body = {};
      else if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw new InvalidRequestError('invalid_parameter', 'The request body must be a JSON object');
      }
    }
    await next();
  };
  return [requireJson, parse, requireObject];
}
