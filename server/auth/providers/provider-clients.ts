import { gitHubShape } from './github-shape.js';
import { gitLabShape } from './gitlab-shape.js';
import { OAuthProviderClient } from './oauth-provider-client.js';
import { OidcProviderClient } from './oidc-provider-client.js';
import type { ProviderClient, ProviderClientSettings } from './provider-client.js';
import type { ProviderEndpoints } from './provider-endpoints.js';
import type { ProviderKind } from './provider-kinds.js';

export interface ProviderSetup extends ProviderClientSettings {
  provider: ProviderKind;
  baseUrl: string | null;
  tenant: string | null;
}

export const defaultGitLabUrl = 'https://gitlab.com';
export const defaultMicrosoftTenant = 'organizations';
const microsoftVerifiedEmailClaims = ['email_verified', 'xms_edov'];

/** The protocol client for one organization's settings at one provider. */
export function providerClient(setup: ProviderSetup, endpoints: ProviderEndpoints): ProviderClient {
  switch (setup.provider) {
    case 'github':
      return new OAuthProviderClient(setup, gitHubShape(endpoints.github));
    case 'gitlab':
      return new OAuthProviderClient(setup, gitLabShape(setup.baseUrl ?? defaultGitLabUrl));
    case 'google':
      return new OidcProviderClient(setup, new URL(endpoints.googleIssuer), ['email_verified'], endpoints.allowInsecureRequests);
    case 'microsoft':
      // Entra sends no email_verified; xms_edov (an optional claim the application asks for) says the tenant verified the email's domain.
      return new OidcProviderClient(setup, new URL(`${endpoints.microsoftAuthority}/${setup.tenant ?? defaultMicrosoftTenant}/v2.0`), microsoftVerifiedEmailClaims, endpoints.allowInsecureRequests);
  }
}
