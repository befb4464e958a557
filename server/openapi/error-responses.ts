import { z } from 'zod';
import { connectionChangedCode } from '../../common/agent-protocol/error-codes.js';
import type { RouteResponse } from '../http/route.js';

export const errorCodes = [
  'missing_required_parameter',
  'invalid_parameter',
  'unknown_parameter',
  'invalid_json',
  'unsupported_content_type',
  'body_too_large',
  'malformed_request',
  'headers_too_large',
  'request_timeout',
  'method_not_allowed',
  'missing_api_key',
  'malformed_api_key',
  'invalid_api_key',
  'expired_api_key',
  'revoked_api_key',
  'invalid_access_token',
  'expired_access_token',
  'revoked_access_token',
  'invalid_session',
  'session_expired',
  'invalid_credentials',
  'insufficient_permission',
  'credential_not_accepted',
  'csrf_token_invalid',
  'plan_required',
  'would_lock_out',
  'password_too_common',
  'ip_not_allowed',
  'resource_missing',
  'already_exists',
  'already_revoked',
  'limit_reached',
  'last_owner',
  'not_invited',
  'already_resolved',
  'webhook_disabled',
  'already_applied',
  'not_ready',
  'nothing_to_apply',
  'optimization_failed',
  'optimization_dismissed',
  'already_dismissed',
  'not_dismissable',
  'auto_apply_not_allowed',
  connectionChangedCode,
  'rate_limited',
  'storage_unavailable',
  'invalid_metrics_token',
  'invalid_code',
  'already_enabled',
  'no_enrollment',
  'two_factor_not_enabled',
  'reauthentication_required',
  'two_factor_required',
  'sms_not_configured',
  'sms_not_sent',
  'saml_test_required',
  'single_sign_on_required',
  'last_sign_in_method',
] as const;

export const errorBody = z
  .object({
    error: z.object({
      type: z.enum([
        'invalid_request',
        'authentication_error',
        'permission_error',
        'not_found',
        'conflict',
        'rate_limit_exceeded',
        'api_error',
      ]),
      message: z.string(),
      param: z.string().optional(),
      code: z.enum(errorCodes).optional(),
      retry_after: z.number().int().optional().describe('On 429: Unix seconds when the window resets'),
    }),
  })
  .meta({ id: 'Error' });

export const errorResponses: Record<number, RouteResponse> = {
  400: { description: 'Invalid request parameters or body', schema: errorBody },
  401: {
    description:
      'Missing, malformed, unknown, expired or revoked API key (or the key it was made with is revoked or expired, or its user no longer exists); ' +
      'an OAuth access token that is unknown, expired or revoked, or acts for a user who is no longer active (`invalid_access_token`, `expired_access_token`, `revoked_access_token`); ' +
      'or a session cookie that names no live session (`invalid_session`, `session_expired`)',
    schema: errorBody,
  },
  403: {
    description:
      'The credential lacks the scope, permission or role (`insufficient_permission`), the endpoint does not take its kind (`credential_not_accepted`), ' +
      'or a session request that changes anything lacks the right X-CSRF-Token (`csrf_token_invalid`)',
    schema: errorBody,
  },
  404: { description: 'No such resource in this organization', schema: errorBody },
  429: {
    description:
      "Rate limit exceeded. Counted per principal in clock-hour windows: a user's personal tokens together, a service account's keys together " +
      '(more keys buy no more requests); without a valid key per client address (IPv6 per /64); agent calls (/v1/agent/*) in a budget of their own.',
    schema: errorBody,
  },
  500: { description: 'Internal error', schema: errorBody },
};
