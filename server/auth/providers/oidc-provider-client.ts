import * as oidc from 'openid-client';
import { ProviderRefusedError, type AuthorizationChecks, type CredentialCheck, type ProviderClient, type ProviderClientSettings, type ProviderProfile } from './provider-client.js';

/**
 * An OpenID Connect provider (Google, Microsoft Entra) through openid-client: discovery from the
 * issuer, authorization code with PKCE, and an ID token whose signature, issuer, audience, nonce and
 * times openid-client checks, as it checks the state.
 */
export class OidcProviderClient implements ProviderClient {
  #configuration: Promise<oidc.Configuration> | undefined;

  constructor(
    private readonly settings: ProviderClientSettings,
    private readonly issuer: URL,
    /** The ID token claims that vouch for the email, any one of them `true`. */
    private readonly verifiedEmailClaims: readonly string[],
    /** Plain http to the issuer: only ever set by tests, whose fake issuers listen on loopback. */
    private readonly allowInsecureRequests = false,
  ) {}

  async authorizationUrl(): Promise<{ url: URL; checks: AuthorizationChecks }> {
    const checks = { state: oidc.randomState(), codeVerifier: oidc.randomPKCECodeVerifier(), nonce: oidc.randomNonce() };
    const url = oidc.buildAuthorizationUrl(await this.#discover(), {
      redirect_uri: this.settings.redirectUri,
      scope: 'openid email profile',
      state: checks.state,
      nonce: checks.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(checks.codeVerifier),
      code_challenge_method: 'S256',
    });
    return { url, checks };
  }

  async finish(callbackUrl: URL, checks: AuthorizationChecks): Promise<ProviderProfile> {
    let claims: oidc.IDToken | undefined;
    try {
      const tokens = await oidc.authorizationCodeGrant(await this.#discover(), callbackUrl, {
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        pkceCodeVerifier: checks.codeVerifier,
        idTokenExpected: true,
      });
      claims = tokens.claims();
    } catch (error) {
      throw new ProviderRefusedError(`the sign-in was not accepted: ${(error as Error).message}`, { cause: error });
    }
    if (claims === undefined) throw new ProviderRefusedError('no ID token');
    const email = typeof claims.email === 'string' ? claims.email : null;
    return { issuer: claims.iss, subject: claims.sub, email, emailVerified: this.verifiedEmailClaims.some((claim) => claims[claim] === true) };
  }

  async checkCredentials(): Promise<CredentialCheck> {
    let configuration: oidc.Configuration;
    try {
      configuration = await this.#discover();
    } catch (error) {
      return { ok: false, message: `The provider's OpenID configuration could not be read: ${(error as Error).message}` };
    }
    try {
      const callback = new URL(this.settings.redirectUri);
      callback.searchParams.set('code', 'dbmon-credential-check');
      await oidc.authorizationCodeGrant(configuration, callback, { pkceCodeVerifier: oidc.randomPKCECodeVerifier() });
      return { ok: false, message: 'The token endpoint accepted a code that cannot be valid' };
    } catch (error) {
      if (error instanceof oidc.ResponseBodyError && error.error === 'invalid_grant') return { ok: true, message: 'The provider accepted the client id and secret' };
      if (error instanceof oidc.ResponseBodyError) return { ok: false, message: `The provider refused the client: ${error.error}` };
      return { ok: false, message: `The token endpoint could not be used: ${(error as Error).message}` };
    }
  }

  /** Discovery once per client; a failed one is tried again next time. */
  #discover(): Promise<oidc.Configuration> {
    this.#configuration ??= oidc
      .discovery(this.issuer, this.settings.clientId, this.settings.clientSecret, undefined, {
        ...(this.allowInsecureRequests && { execute: [oidc.allowInsecureRequests] }),
        timeout: 10,
      })
      .then((configuration) => redeemingAt(configuration, this.settings.redirectUri))
      .catch((error: unknown) => {
        this.#configuration = undefined;
        throw error;
      });
    return this.#configuration;
  }
}

/**
 * openid-client sends the callback address stripped of its query as the token request's redirect_uri,
 * and overwrites a redirect_uri given among the token parameters: the registered address, whose
 * `?org=` query is part of it, is put back in the request as openid-client's documentation shows.
 */
function redeemingAt(configuration: oidc.Configuration, redirectUri: string): oidc.Configuration {
  configuration[oidc.customFetch] = (url, options) => {
    if (options.body instanceof URLSearchParams && options.body.get('grant_type') === 'authorization_code') options.body.set('redirect_uri', redirectUri);
    return fetch(url, options as RequestInit);
  };
  return configuration;
}
