export type ErrorType =
  | 'invalid_request'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found'
  | 'conflict'
  | 'rate_limit_exceeded'
  | 'api_error';

export interface ErrorBody {
  error: {
    type: ErrorType;
    message: string;
    param?: string;
    code?: string;
    retry_after?: number;
  };
}

/** An error that maps to the contract's error body; thrown anywhere, answered by the error handler. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: ErrorType,
    message: string,
    readonly code?: string,
    readonly param?: string,
  ) {
    super(message);
    this.name = new.target.name;
  }

  toBody(): ErrorBody {
    return {
      error: {
        type: this.type,
        message: this.message,
        ...(this.param !== undefined && { param: this.param }),
        ...(this.code !== undefined && { code: this.code }),
      },
    };
  }
}

export class InvalidRequestError extends ApiError {
  constructor(code: string, message: string, param?: string) {
    super(400, 'invalid_request', message, code, param);
  }
}

export class MethodNotAllowedError extends ApiError {
  constructor(readonly allow: string[]) {
    super(405, 'invalid_request', `Method not allowed; allowed: ${allow.join(', ')}`, 'method_not_allowed');
  }
}

export class AuthenticationError extends ApiError {
  constructor(code: string, message: string) {
    super(401, 'authentication_error', message, code);
  }
}

export class PermissionError extends ApiError {
  constructor(message: string, code = 'insufficient_permission') {
    super(403, 'permission_error', message, code);
  }
}

export class NotFoundError extends ApiError {
  constructor(message = 'No such resource', param?: string) {
    super(404, 'not_found', message, 'resource_missing', param);
  }
}

/** No route has this method and path (as opposed to a route's resource that does not exist). */
export class NoRouteError extends NotFoundError {}

export class ConflictError extends ApiError {
  constructor(code: string, message: string, param?: string) {
    super(409, 'conflict', message, code, param);
  }
}

export class RateLimitError extends ApiError {
  constructor(readonly resetAt: number, now: number) {
    const retryInSeconds = Math.max(0, resetAt - now);
    super(
      429,
      'rate_limit_exceeded',
      `Rate limit exceeded; retry after ${new Date(resetAt * 1000).toISOString()} (in ${retryInSeconds} s)`,
      'rate_limited',
    );
  }

  override toBody(): ErrorBody {
    const body = super.toBody();
    body.error.retry_after = this.resetAt;
    return body;
  }
}
