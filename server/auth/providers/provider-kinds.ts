/** The external providers an organization may offer for sign-in (spec 5.4). */
export const providerKinds = ['github', 'google', 'microsoft', 'gitlab'] as const;
export type ProviderKind = (typeof providerKinds)[number];

/** How each is named to people. */
export const providerNames: Record<ProviderKind, string> = { github: 'GitHub', google: 'Google', microsoft: 'Microsoft', gitlab: 'GitLab' };
