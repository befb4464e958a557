import type { Middleware } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { InvalidRequestError } from '../errors.js';

const methodsWithBody = new Set(['POST', 'PUT', 'PATCH']);

/** JSON bodies only: any other content type with a body is refused before parsing. */
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
    jsonStrict: true,
    urlencoded: false,
    text: false,
    multipart: false,
    jsonLimit: limitBytes,
    parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH],
    onError: (error) => {
      throw error;
    },
  }) as Middleware;
  return [requireJson, parse];
}
