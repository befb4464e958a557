import type { SecretBox } from '../../../common/secret-box.js';
import { InvalidRequestError, NotFoundError } from '../../errors.js';
import type { Transaction } from '../../storage/open-database.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { AuditOrigin } from '../audit/audit-origin.js';
import type { CredentialCheck, ProviderClient } from './provider-client.js';
import { defaultGitLabUrl, defaultMicrosoftTenant, providerClient } from './provider-clients.js';
import type { ProviderEndpoints } from './provider-endpoints.js';
import type { IdentityProviderRow, IdentityProvidersRepository } from './identity-providers-repository.js';
import type { ProviderKind } from './provider-kinds.js';

export interface ProviderSettingsInput {
  client_id: string;
  /** Required the first time; left out, the saved one stays. */
  client_secret?: string | undefined;
  base_url?: string | null | undefined;
  tenant?: string | null | undefined;
  enabled: boolean;
}

/** Organizations by id (the callback address holds the slug) and by slug (the sign-in page names one). */
export interface ProviderOrganizations {
  findById(id: string): { slug: string } | undefined;
  findBySlug(slug: string): { id: string; slug: string } | undefined;
}

/** The providers each organization set up for sign-in; client secrets sealed at rest, never shown again. */
export class IdentityProvidersService {
  /** By organization and provider; one per pair at most, dropped when its settings change. */
  readonly #clients = new Map<string, { updatedAt: string; client: ProviderClient }>();

  constructor(
    private readonly providers: IdentityProvidersRepository,
    private readonly organizations: ProviderOrganizations,
    private readonly secretBox: SecretBox,
    private readonly endpoints: ProviderEndpoints,
    private readonly authUrl: string,
    private readonly audit: AuditLog,
    private readonly transaction: Transaction,
  ) {}

  list(orgId: string): IdentityProviderRow[] {
    return this.providers.list(orgId);
  }

  /** The organization a sign-in page names by its slug, with the providers its people may sign in with now. */
  signInChoices(slug: string): { orgId: string; slug: string; providers: ProviderKind[] } | undefined {
    const organization = this.organizations.findBySlug(slug);
    if (organization === undefined) return undefined;
    const providers = this.providers.list(organization.id).filter((row) => row.enabled === 1).map((row) => row.provider);
    return { orgId: organization.id, slug: organization.slug, providers };
  }

  save(origin: AuditOrigin, provider: ProviderKind, input: ProviderSettingsInput, now: Date): IdentityProviderRow {
    const previous = this.providers.find(origin.orgId, provider);
    if (previous === undefined && input.client_secret === undefined) {
      throw new InvalidRequestError('missing_required_parameter', 'client_secret is required when a provider is first set up', 'client_secret');
    }
    const row: IdentityProviderRow = {
      org_id: origin.orgId,
      provider,
      client_id: input.client_id,
      client_secret: input.client_secret === undefined ? previous!.client_secret : this.secretBox.seal(input.client_secret, sealedFor(origin.orgId, provider)),
      base_url: provider === 'gitlab' ? (input.base_url ?? previous?.base_url ?? defaultGitLabUrl) : null,
      tenant: provider === 'microsoft' ? (input.tenant ?? previous?.tenant ?? defaultMicrosoftTenant) : null,
      enabled: input.enabled ? 1 : 0,
      created_at: previous?.created_at ?? now.toISOString(),
      updated_at: now.toISOString(),
    };
    return this.transaction(() => {
      this.providers.save(row);
      this.#clients.delete(`${origin.orgId}:${provider}`);
      const details = { client_id: row.client_id, base_url: row.base_url, tenant: row.tenant, enabled: input.enabled, client_secret_changed: input.client_secret !== undefined };
      this.audit.record({ origin, action: 'identity_provider.updated', target: { type: 'identity_provider', id: provider }, details }, now);
      return row;
    });
  }

  get(orgId: string, provider: ProviderKind): IdentityProviderRow {
    const row = this.providers.find(orgId, provider);
    if (row === undefined) throw new NotFoundError(`${provider} is not set up`, 'provider');
    return row;
  }

  delete(origin: AuditOrigin, provider: ProviderKind, now: Date): void {
    this.transaction(() => {
      if (!this.providers.delete(origin.orgId, provider)) throw new NotFoundError(`${provider} is not set up`, 'provider');
      this.#clients.delete(`${origin.orgId}:${provider}`);
      this.audit.record({ origin, action: 'identity_provider.deleted', target: { type: 'identity_provider', id: provider } }, now);
    });
  }

  /** Checks the saved settings against the provider (reachable, the client id and secret accepted); enabled or not. */
  test(orgId: string, provider: ProviderKind): Promise<CredentialCheck> {
    return this.client(this.get(orgId, provider)).checkCredentials();
  }

  /** `{auth_url}/auth/{provider}/callback?org={slug}`: the address to register at the provider, the same for every organization but its query. */
  callbackUrl(orgId: string, provider: ProviderKind): string {
    const slug = this.organizations.findById(orgId)?.slug ?? '';
    return `${this.authUrl}/auth/${provider}/callback?${new URLSearchParams({ org: slug })}`;
  }

  /** The client for these settings, kept while they stay the same: an OpenID provider's discovery and keys are then fetched once, not at every sign-in. */
  client(row: IdentityProviderRow): ProviderClient {
    const key = `${row.org_id}:${row.provider}`;
    const kept = this.#clients.get(key);
    if (kept?.updatedAt === row.updated_at) return kept.client;
    const clientSecret = this.secretBox.open(row.client_secret, sealedFor(row.org_id, row.provider));
    const setup = { provider: row.provider, clientId: row.client_id, clientSecret, redirectUri: this.callbackUrl(row.org_id, row.provider), baseUrl: row.base_url, tenant: row.tenant };
    const client = providerClient(setup, this.endpoints);
    this.#clients.set(key, { updatedAt: row.updated_at, client });
    return client;
  }
}

/** A sealed secret opens only for its own organization and provider. */
function sealedFor(orgId: string, provider: ProviderKind): string {
  return `identity_provider:${orgId}:${provider}`;
}
