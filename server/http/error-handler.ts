import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { ApiError, InvalidRequestError, MethodNotAllowedError } from '../errors.js';
import { matchedRoute } from './matched-route.js';

/** Outermost middleware after the request id: every failure leaves as the contract's error body. */
export function errorHandler(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (thrown) {
      const error = toApiError(thrown);
      if (error === undefined) {
        logger.error({ err: thrown, requestId: ctx.state.requestId, method: ctx.method, route: matchedRoute(ctx) }, 'request failed');
        ctx.status = 500;
        ctx.body = { error: { type: 'api_error', message: `Internal error; request id ${String(ctx.state.requestId)}` } };
        return;
      }
      if (error instanceof MethodNotAllowedError) ctx.set('Allow', error.allow.join(', '));
      ctx.status = error.status;
      ctx.body = error.toBody();
    }
  };
}

/** koa-body reports parse failures as http-errors; map them by status, never by message. */
function toApiError(thrown: unknown): ApiError | undefined {
  if (thrown instanceof ApiError) return thrown;
  const status = (thrown as { status?: number }).status;
  if (status === 400) return new InvalidRequestError('invalid_json', 'The request body is not valid JSON');
  if (status === 413) return new InvalidRequestError('body_too_large', 'The request body is too large');
  if (status === 415) return new InvalidRequestError('unsupported_content_type', 'Send the body as application/json');
  return undefined;
}
