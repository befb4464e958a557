import { defaultScopes, scopes, type Scope } from '../permissions.js';

/** What an application may be granted: every key scope but `agent` (agent credentials are for agents only). */
export const oauthScopes = scopes.filter((scope) => scope !== 'agent') as Exclude<Scope, 'agent'>[];
export type OAuthScope = (typeof oauthScopes)[number];

/** An application registered without a list gets the default key scopes. */
export const defaultOAuthScopes = defaultScopes as readonly OAuthScope[];

/** A `scope` parameter (RFC 6749 §3.3: space-separated); undefined when it names an unknown scope or repeats one. */
export function parseScopeParameter(text: string): OAuthScope[] | undefined {
  const names = text.split(' ').filter((name) => name !== '');
  if (new Set(names).size !== names.length) return undefined;
  return names.every((name): name is OAuthScope => (oauthScopes as string[]).includes(name)) ? names : undefined;
}

/** The scopes in the catalog's order, space-separated: one text for a set, stored and answered as `scope`. */
export function scopeText(list: readonly OAuthScope[]): string {
  return oauthScopes.filter((scope) => list.includes(scope)).join(' ');
}
