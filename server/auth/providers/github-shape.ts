import { z } from 'zod';
import type { OAuthProviderShape } from './oauth-provider-client.js';
import { providerJson } from './provider-json.js';

/** Where GitHub is: github.com, or a GitHub Enterprise Server (`https://HOST` and `https://HOST/api/v3`). */
export interface GitHubEndpoints {
  webUrl: string;
  apiUrl: string;
}

export const gitHubDotCom: GitHubEndpoints = { webUrl: 'https://github.com', apiUrl: 'https://api.github.com' };

const githubUser = z.object({ id: z.number() });
const githubEmails = z.array(z.object({ email: z.string(), primary: z.boolean(), verified: z.boolean() }));
const githubAccept = 'application/vnd.github+json';

/**
 * GitHub's OAuth apps: the account's numeric id (a login can be renamed and reused), and its
 * primary email with GitHub's own `verified` flag from /user/emails (the profile's public email says
 * nothing about verification).
 */
export function gitHubShape({ webUrl, apiUrl }: GitHubEndpoints): OAuthProviderShape {
  return {
    authorizationEndpoint: `${webUrl}/login/oauth/authorize`,
    tokenEndpoint: `${webUrl}/login/oauth/access_token`,
    scopes: ['read:user', 'user:email'],
    unknownCodeErrors: ['bad_verification_code'],
    profile: async (accessToken) => {
      const user = githubUser.parse(await providerJson(`${apiUrl}/user`, accessToken, githubAccept));
      const emails = githubEmails.parse(await providerJson(`${apiUrl}/user/emails`, accessToken, githubAccept));
      const primary = emails.find((entry) => entry.primary);
      return { issuer: webUrl, subject: String(user.id), email: primary?.email ?? null, emailVerified: primary?.verified === true };
    },
  };
}
