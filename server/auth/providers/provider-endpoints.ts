import { gitHubDotCom, type GitHubEndpoints } from './github-shape.js';

/** Where the providers whose address an organization does not choose are; tests point them at local fakes. */
export interface ProviderEndpoints {
  github: GitHubEndpoints;
  /** Google's OpenID issuer. */
  googleIssuer: string;
  /** Microsoft Entra's authority: the issuer is `{authority}/{tenant}/v2.0`. */
  microsoftAuthority: string;
  /** Plain http to OpenID issuers: tests only (their fakes listen on loopback); never from configuration. */
  allowInsecureRequests: boolean;
}

export const publicProviderEndpoints: ProviderEndpoints = {
  github: gitHubDotCom,
  googleIssuer: 'https://accounts.google.com',
  microsoftAuthority: 'https://login.microsoftonline.com',
  allowInsecureRequests: false,
};
