/** What an organization gives its identity provider: all under `{org_url}` = `{public_url}/orgs/{slug}`. */
export interface SamlAddresses {
  sp_entity_id: string;
  acs_url: string;
  start_url: string;
  metadata_url: string;
}

export function samlAddresses(publicUrl: string, slug: string): SamlAddresses {
  const orgUrl = `${publicUrl.replace(/\/+$/, '')}/orgs/${encodeURIComponent(slug)}`;
  return { sp_entity_id: orgUrl, acs_url: `${orgUrl}/auth/saml/acs`, start_url: `${orgUrl}/auth/saml`, metadata_url: `${orgUrl}/auth/saml/metadata` };
}
