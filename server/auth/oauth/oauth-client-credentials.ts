import type { Context } from 'koa';
import type { ClientCredentials } from './oauth-applications-service.js';
import { OAuthError } from './oauth-error.js';

/** The form fields a client may authenticate with. */
export interface ClientCredentialFields {
  client_id?: string | undefined;
  client_secret?: string | undefined;
}

/**
 * The client's credentials from HTTP Basic (RFC 6749 §2.3.1: each part form-url-encoded) or from the
 * form; a client uses one method only.
 */
export function clientCredentials(ctx: Context, form: ClientCredentialFields): ClientCredentials {
  const basic = /^Basic +([A-Za-z0-9+/=]+)$/i.exec(ctx.get('Authorization'));
  if (basic === null) {
    if (form.client_id === undefined) throw new OAuthError('invalid_client', 'client_id is required (in the form or with HTTP Basic)');
    return { clientId: form.client_id, clientSecret: form.client_secret };
  }
  if (form.client_secret !== undefined) throw new OAuthError('invalid_request', 'Authenticate the client with HTTP Basic or the form, not both');
  const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const decode = (part: string) => {
    try {
      return decodeURIComponent(part.replace(/\+/g, ' '));
    } catch {
      throw new OAuthError('invalid_client', 'The HTTP Basic credentials are not form-url-encoded');
    }
  };
  if (colon < 0) throw new OAuthError('invalid_client', 'The HTTP Basic credentials are malformed');
  const clientId = decode(decoded.slice(0, colon));
  if (form.client_id !== undefined && form.client_id !== clientId) throw new OAuthError('invalid_request', 'client_id differs from the HTTP Basic one');
  return { clientId, clientSecret: decode(decoded.slice(colon + 1)) };
}
