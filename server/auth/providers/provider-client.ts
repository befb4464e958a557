/** Who the provider says signed in. */
export interface ProviderProfile {
  /** Whose numbering `subject` is in: the OIDC issuer, or the OAuth provider's origin. */
  issuer: string;
  subject: string;
  email: string | null;
  /** Only a verified email may name an existing account. */
  emailVerified: boolean;
}

/** What leaving for the provider must remember, to check the browser that comes back. */
export interface AuthorizationChecks {
  state: string;
  codeVerifier: string;
  nonce?: string | undefined;
}

/** The outcome of checking saved settings against the provider, without a person signing in. */
export interface CredentialCheck {
  ok: boolean;
  message: string;
}

/** One organization's settings at one provider, spoken in that provider's protocol. */
export interface ProviderClient {
  /** Where to send the browser, and what its return must match. */
  authorizationUrl(): Promise<{ url: URL; checks: AuthorizationChecks }>;
  /** The callback address the browser came back to (with its code and state): the provider's account, once the checks pass. */
  finish(callbackUrl: URL, checks: AuthorizationChecks): Promise<ProviderProfile>;
  /** Asks the token endpoint to redeem a code that cannot be valid: a wrong client id or secret is told apart from the expected refusal. */
  checkCredentials(): Promise<CredentialCheck>;
}

/** The provider did not vouch for the browser that came back: a mismatched state or nonce, a refused code, an unreadable answer. */
export class ProviderRefusedError extends Error {}

/** The settings a client is made from, the secret opened. */
export interface ProviderClientSettings {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}
