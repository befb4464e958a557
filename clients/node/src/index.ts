export { DbmonClient, type ClientOptions, type Paginators } from './client.js';
export {
  APIConnectionError,
  APIError,
  AuthenticationError,
  ConflictError,
  DbmonError,
  InvalidRequestError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  WebhookVerificationError,
  type ErrorDetails,
} from './errors.js';
export type { components, operations as OperationTypes, paths, webhooks } from './generated/openapi.js';
export type { OperationArguments, OperationId, OperationItem, OperationParameters, OperationResult, PaginatedOperationId } from './operation-types.js';
export type { RateLimit } from './transport.js';
export { version } from './version.js';
export { verifyWebhook, type VerifyWebhookOptions, type WebhookEvent, type WebhookEventOf, type WebhookEventType } from './webhooks.js';
