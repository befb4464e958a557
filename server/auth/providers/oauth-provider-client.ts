import { CodeChallengeMethod, generateCodeVerifier, generateState, OAuth2Client, OAuth2RequestError } from 'arctic';
import { sameSecret } from '../../crypto/same-secret.js';
import { ProviderRefusedError, type AuthorizationChecks, type CredentialCheck, type ProviderClient, type ProviderClientSettings, type ProviderProfile } from './provider-client.js';

/** A plain OAuth 2.0 provider (GitHub, GitLab): where its endpoints are, and how to read the account from an access token. */
export interface OAuthProviderShape {
  authorizationEndpoint: string;
  tokenEndpoint: string;
  scopes: string[];
  /** The codes a token endpoint answers for a code it does not know, when the client id and secret are right. */
  unknownCodeErrors: readonly string[];
  profile(accessToken: string): Promise<ProviderProfile>;
}

const impossibleCode = 'dbmon-credential-check';

/** Authorization code with PKCE through arctic's generic client; the state is compared here, since plain OAuth has no ID token to carry it. */
export class OAuthProviderClient implements ProviderClient {
  readonly #client: OAuth2Client;

  constructor(
    settings: ProviderClientSettings,
    private readonly shape: OAuthProviderShape,
  ) {
    this.#client = new OAuth2Client(settings.clientId, settings.clientSecret, settings.redirectUri);
  }

  async authorizationUrl(): Promise<{ url: URL; checks: AuthorizationChecks }> {
    const checks = { state: generateState(), codeVerifier: generateCodeVerifier() };
    const url = this.#client.createAuthorizationURLWithPKCE(this.shape.authorizationEndpoint, checks.state, CodeChallengeMethod.S256, checks.codeVerifier, this.shape.scopes);
    return { url, checks };
  }

  async finish(callbackUrl: URL, checks: AuthorizationChecks): Promise<ProviderProfile> {
    const error = callbackUrl.searchParams.get('error');
    if (error !== null) throw new ProviderRefusedError(`the provider answered ${error}`);
    if (!sameSecret(callbackUrl.searchParams.get('state') ?? '', checks.state)) throw new ProviderRefusedError('state mismatch');
    const code = callbackUrl.searchParams.get('code');
    if (code === null) throw new ProviderRefusedError('no code');
    try {
      return await this.shape.profile(await this.#redeem(code, checks.codeVerifier));
    } catch (error) {
      throw new ProviderRefusedError(`the code was not redeemed: ${(error as Error).message}`, { cause: error });
    }
  }

  async checkCredentials(): Promise<CredentialCheck> {
    try {
      await this.#redeem(impossibleCode, generateCodeVerifier());
      return { ok: false, message: 'The token endpoint accepted a code that cannot be valid' };
    } catch (error) {
      const code = error instanceof OAuth2RequestError ? error.code : undefined;
      if (code !== undefined && this.shape.unknownCodeErrors.includes(code)) return { ok: true, message: 'The provider accepted the client id and secret' };
      return { ok: false, message: code === undefined ? `The token endpoint could not be used: ${(error as Error).message}` : `The provider refused the client: ${code}` };
    }
  }

  /** The access token for a code; GitHub answers its refusals with status 200, so the body is checked for an error either way. */
  async #redeem(code: string, codeVerifier: string): Promise<string> {
    const tokens = await this.#client.validateAuthorizationCode(this.shape.tokenEndpoint, code, codeVerifier);
    const data = tokens.data as { error?: unknown; error_description?: unknown };
    if (typeof data.error === 'string') throw new OAuth2RequestError(data.error, typeof data.error_description === 'string' ? data.error_description : null, null, null);
    return tokens.accessToken();
  }
}
