/** What the server's error answer said, and the request it answered. */
export interface ErrorDetails {
  /** HTTP status of the answer. */
  status?: number | undefined;
  /** The contract's `error.type` (`not_found`, ...). */
  type?: string | undefined;
  code?: string | undefined;
  /** The parameter or field at fault. */
  param?: string | undefined;
  /** The answer's X-Request-Id, to find the request in the server's log. */
  requestId?: string | undefined;
}

/** The base of every error this library throws. */
export class DbmonError extends Error {
  readonly status: number | undefined;
  readonly type: string | undefined;
  readonly code: string | undefined;
  readonly param: string | undefined;
  readonly requestId: string | undefined;

  constructor(message: string, details: ErrorDetails = {}, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.status = details.status;
    this.type = details.type;
    this.code = details.code;
    this.param = details.param;
    this.requestId = details.requestId;
  }
}

/** 401 `authentication_error`: no, an unknown, expired or revoked key or token. */
export class AuthenticationError extends DbmonError {}
/** 403 `permission_error`: the key's permission, scopes, role or address does not allow it. */
export class PermissionDeniedError extends DbmonError {}
/** 404 `not_found`. */
export class NotFoundError extends DbmonError {}
/** 409 `conflict`. */
export class ConflictError extends DbmonError {}
/** 400 `invalid_request`: a parameter or the body is wrong (`param` names it). */
export class InvalidRequestError extends DbmonError {}
/** 500 `api_error`, and any answer of a type this library does not know. */
export class APIError extends DbmonError {}

/** 429 `rate_limit_exceeded`, once the retries allowed are spent (or the wait would be too long). */
export class RateLimitError extends DbmonError {
  /** Seconds to wait before the next request (the answer's Retry-After). */
  readonly retryAfter: number | undefined;
  /** Unix seconds when the rate-limit window resets (the body's `error.retry_after`). */
  readonly resetAt: number | undefined;

  constructor(message: string, details: ErrorDetails & { retryAfter?: number | undefined; resetAt?: number | undefined }) {
    super(message, details);
    this.retryAfter = details.retryAfter;
    this.resetAt = details.resetAt;
  }
}

/** No answer: the connection failed, was reset or timed out. */
export class APIConnectionError extends DbmonError {}

/** A webhook delivery whose signature or timestamp does not check out. */
export class WebhookVerificationError extends DbmonError {}

const errorClassByType: Record<string, typeof DbmonError> = {
  authentication_error: AuthenticationError,
  permission_error: PermissionDeniedError,
  not_found: NotFoundError,
  conflict: ConflictError,
  invalid_request: InvalidRequestError,
};

/** The error an answer with a failing status stands for, from the contract's envelope `{error: {type, message, ...}}`. */
export function errorFromAnswer(status: number, headers: Headers, body: unknown): DbmonError {
  const { type, message, code, param, retryAfter } = errorEnvelope(body);
  const details: ErrorDetails = { status, type, code, param, requestId: headers.get('x-request-id') ?? undefined };
  const text = message ?? `HTTP ${status}`;
  if (status === 429) return new RateLimitError(text, { ...details, retryAfter: retryAfterSeconds(headers), resetAt: retryAfter });
  const ErrorClass = errorClassByType[type ?? typeByStatus(status)] ?? APIError;
  return new ErrorClass(text, details);
}

/**
 * The contract's envelope, or the OAuth token endpoint's RFC 6749 `{error, error_description}`
 * (its `error` becomes the code).
 */
function errorEnvelope(body: unknown): { type?: string; message?: string; code?: string; param?: string; retryAfter?: number } {
  if (typeof body !== 'object' || body === null || !('error' in body)) return {};
  const { error } = body as { error: unknown };
  if (typeof error === 'string') {
    const description = (body as { error_description?: unknown }).error_description;
    return { code: error, message: typeof description === 'string' ? description : error };
  }
  if (typeof error !== 'object' || error === null) return {};
  const fields = error as Record<string, unknown>;
  return {
    type: stringOrUndefined(fields.type),
    message: stringOrUndefined(fields.message),
    code: stringOrUndefined(fields.code),
    param: stringOrUndefined(fields.param),
    retryAfter: typeof fields.retry_after === 'number' ? fields.retry_after : undefined,
  };
}

function typeByStatus(status: number): string {
  return { 400: 'invalid_request', 401: 'authentication_error', 403: 'permission_error', 404: 'not_found', 409: 'conflict' }[status] ?? 'api_error';
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Retry-After in seconds (the only form the server sends), or undefined. */
export function retryAfterSeconds(headers: Headers): number | undefined {
  const value = headers.get('retry-after');
  return value !== null && /^\d+$/.test(value.trim()) ? Number(value) : undefined;
}
