/** RFC 6749 §5.2 (token endpoint) and §4.1.2.1 (authorization redirects) error codes. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'access_denied'
  | 'unsupported_token_type';

/** A refusal answered in OAuth's own terms (`{error, error_description}`), not the API's error envelope. */
export class OAuthError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
    /** invalid_client is 401 (RFC 6749 §5.2); every other token endpoint error 400. */
    readonly status = code === 'invalid_client' ? 401 : 400,
  ) {
    super(description);
    this.name = 'OAuthError';
  }

  toBody(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.code, error_description: this.description };
  }
}
