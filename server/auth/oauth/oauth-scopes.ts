import { defaultScopes, scopes, type Scope } from '../permissions.js';

/** What an application may be granted: every key scope but `agent` (agent credentials are for agents only). */
export const oauthScopes = scopes.filter((scope) => scope !== 'agent') as Exclude<Scope, 'agent'>[];
export type OAuthScope = (typeof oauthScopes)[number];

/** Each scope in words: on the consent page and in the OpenAPI document's oauth2 scheme. */
export const scopeDescriptions: Record<OAuthScope, string> = {
  databases: 'Monitored databases: their list, settings and connections',
  metrics: 'Metrics of your databases: current values and history',
  queries: 'Slow queries and their statistics',
  alerts: 'Alerts and alert rules',
  optimizations: 'Optimizations: index analyses and applying them',
  webhooks: 'Webhooks: where events are sent',
  api_keys: 'API keys: listing and revoking them, never making one (for owners and admins, the audit log too)',
};

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
