import { AuthenticationError, ConflictError, InvalidRequestError, NotFoundError, PermissionError } from '../../errors.js';
import { newId } from '../../crypto/new-id.js';
import type { IdentityService } from '../identity/identity-service.js';
import { allows, defaultScopes, isAdminRole, narrowerAccess, roleAccess, type Access, type Scope } from '../permissions.js';
import type { Principal } from '../principal.js';
import type { GenerationCache } from '../../storage/generation-cache.js';
import { checkToken, issueToken } from './api-key-token.js';
import type { ApiKeyAuthRow, ApiKeyListRow, ApiKeysRepository } from './api-keys-repository.js';

export interface NewApiKey {
  name: string;
  permission: Access;
  scopes?: Scope[] | undefined;
  expires_at?: string | undefined;
  service_account?: string | undefined;
}

export type KeyOwner = { kind: 'personal'; userId: string } | { kind: 'service_account'; serviceAccountId: string };

export interface CreatedApiKey {
  row: ApiKeyListRow;
  value: string;
}

/** last_used_at is written at most this often per key, so reads do not turn every request into a write. */
const lastUsedResolutionMs = 60_000;

export class ApiKeysService {
  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly identity: IdentityService,
    /** Key lookups by token hash (null: no such key), kept until a credential table changes. */
    private readonly lookups: GenerationCache<ApiKeyAuthRow | null>,
  ) {}

  /** Resolves a bearer token to the rights in force now; throws with a code naming what is wrong. */
  authenticate(token: string, now: Date): Principal {
    const check = checkToken(token);
    if (!check.ok) throw new AuthenticationError('malformed_api_key', 'The API key is malformed');
    const row = this.lookups.get(check.hash.toString('base64'), () => this.keys.findForAuth(check.hash) ?? null);
    if (row === null) throw new AuthenticationError('invalid_api_key', 'The API key is not valid');
    if (row.revoked_at !== null) throw new AuthenticationError('revoked_api_key', 'The API key has been revoked');
    if (row.expires_at !== null && Date.parse(row.expires_at) <= now.getTime()) {
      throw new AuthenticationError('expired_api_key', `The API key expired at ${row.expires_at}`);
    }
    if (row.last_used_at === null || now.getTime() - Date.parse(row.last_used_at) >= lastUsedResolutionMs) {
      row.last_used_at = now.toISOString();
      this.keys.touch(row.id, row.last_used_at); // the cached row follows: that column moves no generation
    }
    return toPrincipal(row);
  }

  /** A key made through the API: never broader than the key that asks for it. */
  createFor(principal: Principal, input: NewApiKey, now: Date): CreatedApiKey {
    if (!allows(principal.access, input.permission)) {
      throw new PermissionError('A key cannot create a key with more permission than itself');
    }
    const scopes = input.scopes ?? defaultScopes.filter((scope) => principal.scopes.includes(scope));
    const outside = scopes.find((scope) => !principal.scopes.includes(scope));
    if (outside !== undefined) throw new PermissionError(`A key cannot grant the scope ${outside}, which it does not have`);
    const expiresAt = input.expires_at ?? principal.expiresAt ?? undefined;
    if (principal.expiresAt !== null && expiresAt !== undefined && Date.parse(expiresAt) > Date.parse(principal.expiresAt)) {
      throw new PermissionError('A key cannot create a key that outlives itself');
    }
    return this.create(principal.orgId, this.ownerFor(principal, input, now), { ...input, scopes, expires_at: expiresAt }, now);
  }

  /** Operator path (CLI, first start): no caller to stay within. */
  create(orgId: string, owner: KeyOwner, input: NewApiKey, now: Date): CreatedApiKey {
    if (input.expires_at !== undefined && Date.parse(input.expires_at) <= now.getTime()) {
      throw new InvalidRequestError('invalid_parameter', 'expires_at must be in the future', 'expires_at');
    }
    const token = issueToken(owner.kind);
    const id = newId('key');
    this.keys.insert({
      id,
      org_id: orgId,
      name: input.name,
      kind: owner.kind,
      user_id: owner.kind === 'personal' ? owner.userId : null,
      service_account_id: owner.kind === 'service_account' ? owner.serviceAccountId : null,
      permission: input.permission,
      scopes: JSON.stringify(input.scopes ?? defaultScopes),
      token_hash: token.hash,
      prefix: token.prefix,
      last4: token.last4,
      expires_at: input.expires_at ?? null,
      last_used_at: null,
      created_at: now.toISOString(),
      revoked_at: null,
    });
    return { row: this.keys.findById(id)!, value: token.value };
  }

  list(principal: Principal, limit: number, offset: number): { rows: ApiKeyListRow[]; total: number } {
    return this.keys.listVisible(principal.orgId, visibleOwner(principal), limit, offset);
  }

  /** For the operator CLI: every key of one organization, or of all of them (null). */
  listAll(orgId: string | null): ApiKeyListRow[] {
    if (orgId !== null) this.identity.requireOrganization(orgId);
    return this.keys.all(orgId);
  }

  revokeFor(principal: Principal, id: string, now: Date): void {
    const row = this.keys.findVisible(principal.orgId, id, visibleOwner(principal));
    if (row === undefined) throw new NotFoundError(`No API key ${id}`, 'id');
    this.revoke(row.id, now);
  }

  revoke(id: string, now: Date): void {
    if (this.keys.findById(id) === undefined) throw new NotFoundError(`No API key ${id}`, 'id');
    if (!this.keys.revoke(id, now.toISOString())) throw new ConflictError('already_revoked', `API key ${id} is already revoked`);
  }

  private ownerFor(principal: Principal, input: NewApiKey, now: Date): KeyOwner {
    if (input.service_account !== undefined) {
      if (principal.role !== null && !isAdminRole(principal.role)) {
        throw new PermissionError('Only owners and admins can create service-account keys');
      }
      const account = this.identity.serviceAccount(principal.orgId, input.service_account, input.permission, now);
      if (!allows(account.permission, input.permission)) {
        throw new InvalidRequestError(
          'invalid_parameter',
          `The service account ${account.name} has ${account.permission} permission only`,
          'permission',
        );
      }
      return { kind: 'service_account', serviceAccountId: account.id };
    }
    return principal.kind === 'personal'
      ? { kind: 'personal', userId: principal.userId! }
      : { kind: 'service_account', serviceAccountId: principal.serviceAccountId! };
  }
}

/** Owners, admins and service accounts see every key of the organization; other users their own. */
function visibleOwner(principal: Principal): string | null {
  return principal.role === null || isAdminRole(principal.role) ? null : principal.userId;
}

function toPrincipal(row: ApiKeyAuthRow): Principal {
  const ceiling = row.kind === 'personal' ? roleAccess(row.user_role!) : row.service_account_permission!;
  return {
    orgId: row.org_id,
    plan: row.plan,
    customHourlyLimit: row.custom_hourly_limit,
    credentialId: row.id,
    kind: row.kind,
    userId: row.user_id,
    role: row.user_role,
    serviceAccountId: row.service_account_id,
    access: narrowerAccess(row.permission, ceiling),
    scopes: JSON.parse(row.scopes) as Scope[],
    expiresAt: row.expires_at,
  };
}
