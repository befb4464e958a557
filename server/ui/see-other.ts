import type { Context } from 'koa';

/** 303: the browser follows with a GET, whatever the method it came with. */
export function seeOther(ctx: Context, location: string): void {
  ctx.redirect(location);
  ctx.status = 303;
}
