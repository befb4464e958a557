import { z } from 'zod';
import type { OAuthProviderShape } from './oauth-provider-client.js';
import { providerJson } from './provider-json.js';

const gitlabUserInfo = z.object({ sub: z.string(), email: z.string().optional(), email_verified: z.boolean().optional() });

/** GitLab (gitlab.com or self-hosted at `baseUrl`): the account and its email's verification from the OpenID userinfo endpoint. */
export function gitLabShape(baseUrl: string): OAuthProviderShape {
  return {
    authorizationEndpoint: `${baseUrl}/oauth/authorize`,
    tokenEndpoint: `${baseUrl}/oauth/token`,
    scopes: ['openid', 'email'],
    unknownCodeErrors: ['invalid_grant'],
    profile: async (accessToken) => {
      const info = gitlabUserInfo.parse(await providerJson(`${baseUrl}/oauth/userinfo`, accessToken));
      return { issuer: baseUrl, subject: info.sub, email: info.email ?? null, emailVerified: info.email_verified === true };
    },
  };
}
