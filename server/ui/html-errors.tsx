import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
import { ApiError, MethodNotAllowedError, PermissionError } from '../errors.js';
import { matchedRoute } from '../http/matched-route.js';
import { ErrorPage, errorTitle } from './error-page.js';
import type { PageRenderer } from './page-renderer.js';

const csrfText = 'This form has expired or came from another page. Reload the page and try again.';

/** Every failure of a page leaves as an HTML page with its status; unexpected ones are logged and show the request id. */
export function htmlErrors(renderer: PageRenderer, logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (thrown) {
      sendErrorPage(ctx, renderer, logger, thrown);
    }
  };
}

export function sendErrorPage(ctx: Context, renderer: PageRenderer, logger: Logger, thrown: unknown): void {
  const status = expectedStatus(thrown);
  let text: string | undefined;
  let requestId: string | undefined;
  if (status === undefined) {
    logger.error({ err: thrown, requestId: ctx.state.requestId, method: ctx.method, route: matchedRoute(ctx) }, 'page failed');
    requestId = String(ctx.state.requestId);
  }
  if (thrown instanceof MethodNotAllowedError) ctx.set('Allow', thrown.allow.join(', '));
  if (thrown instanceof PermissionError && thrown.code === 'csrf_token_invalid') text = csrfText;
  const shown = status ?? 500;
  renderer.send(ctx, { status: shown, title: errorTitle(shown) }, <ErrorPage status={shown} text={text} requestId={requestId} />);
}

/** The status of a failure that is the client's (typed errors, and koa-body's http-errors it may show); undefined for a fault of ours. */
function expectedStatus(thrown: unknown): number | undefined {
  if (thrown instanceof ApiError) return thrown.status;
  const { status, expose } = thrown as { status?: unknown; expose?: unknown };
  return typeof status === 'number' && status >= 400 && status < 500 && expose === true ? status : undefined;
}
