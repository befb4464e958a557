import type { OAuthApplicationListRow } from './oauth-applications-repository.js';
import type { OAuthAuthorizationListRow } from './oauth-grants-repository.js';
import type { OAuthScope } from './oauth-scopes.js';

export function presentApplication(row: OAuthApplicationListRow) {
  return {
    id: row.id,
    name: row.name,
    redirect_uris: JSON.parse(row.redirect_uris) as string[],
    confidential: row.confidential === 1,
    scopes: JSON.parse(row.scopes) as OAuthScope[],
    client_id: row.client_id,
    created_at: row.created_at,
  };
}

export function presentAuthorization(row: OAuthAuthorizationListRow) {
  return {
    id: row.id,
    application: { name: row.application_name, client_id: row.client_id, organization: row.organization_name },
    scopes: row.scopes.split(' ') as OAuthScope[],
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
