import type { Context, Middleware } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';

/** Page forms: url-encoded POST bodies only, small (a sign-in form is well under 1 KiB) unless said. */
export function formBody(limitBytes = 16 * 1024): Middleware {
  return koaBody({
    json: false,
    urlencoded: true,
    text: false,
    multipart: false,
    formLimit: limitBytes,
    parsedMethods: [HttpMethodEnum.POST],
    onError: (error) => {
      throw error;
    },
  }) as Middleware;
}

/** A form field's text; '' when absent, repeated or not text. */
export function formField(ctx: Context, name: string): string {
  const value = (ctx.request.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
}
