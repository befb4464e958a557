import { AuthenticationError, ConflictError, InvalidRequestError, NotFoundError, PermissionError } from '../../errors.js';
import { newId } from '../../crypto/new-id.js';
import type { RequestClient } from '../../http/request-client.js';
import type { Transaction } from '../../storage/open-database.js';
import type { AuditLog } from '../audit/audit-log.js';
import { operatorOrigin, originOf, type AuditOrigin } from '../audit/audit-origin.js';
import type { IdentityService } from '../identity/identity-service.js';
import { allows, defaultScopes, isAdminRole, narrowerAccess, roleAccess, type Access, type Scope } from '../permissions.js';
import type { Actor, Principal } from '../principal.js';
import type { GenerationCache } from '../../storage/generation-cache.js';
import { hashTokenBase64 } from '../../crypto/checksummed-token.js';
import { checkToken, hasKeyShape, issueToken } from './api-key-token.js';
import type { ApiKeyAuthRow, ApiKeyListRow, ApiKeyRow, ApiKeysRepository, KeyVisibility } from './api-keys-repository.js';

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

/** What authentication makes of a cached key row, once: its times parsed (`lastUsedMs` follows last_used_at) and its principal. */
interface KeyRowDerived {
  expiresMs: number | null;
  ancestorExpiresMs: number | null;
  lastUsedMs: number | null;
  principal: Principal | undefined;
}

export const defaultMaxLiveKeysPerOrganization = 1000;

function malformedKey(): AuthenticationError {
  return new AuthenticationError('malformed_api_key', 'The API key is malformed');
}

export class ApiKeysService {
  /**
   * Made once per cached key row (`lookups` keeps the row, and drops it when a credential table changes):
   * a Date.parse, or the principal's JSON.parse of the scopes, cost more than the rest of a cached lookup.
   */
  readonly #derived = new WeakMap<ApiKeyAuthRow, KeyRowDerived>();

  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly identity: IdentityService,
    private readonly audit: AuditLog,
    private readonly transaction: Transaction,
    /** Key lookups by token hash (null: no such key), kept until a credential table changes. */
    private readonly lookups: GenerationCache<ApiKeyAuthRow | null>,
    /** Keys neither revoked nor expired that one organization may hold (config api_keys.max_live_per_organization). */
    private readonly maxLivePerOrganization = defaultMaxLiveKeysPerOrganization,
  ) {}

  /** Resolves a bearer token to the rights in force now; throws with a code naming what is wrong. */
  authenticate(token: string, now: Date): Principal {
    if (!hasKeyShape(token)) throw malformedKey();
    // A key seen before is found by its hash alone (its value was well-formed, or its hash would not
    // be stored); only a lookup checks the characters and checksum, so no malformed value reaches storage.
    const hash = hashTokenBase64(token);
    const row = this.lookups.get(hash, () => {
      if (!checkToken(token).ok) throw malformedKey();
      return this.keys.findForAuth(Buffer.from(hash, 'base64')) ?? null;
    });
    if (row === null) throw new AuthenticationError('invalid_api_key', 'The API key is not valid');
    // Its user or service account deleted with foreign keys off (the sqlite3 shell): no role to act with.
    if (row.kind === 'personal' ? row.user_role === null : row.service_account_permission === null) {
      throw new AuthenticationError('invalid_api_key', 'The API key belongs to a user or service account that no longer exists');
    }
    if (row.revoked_at !== null) throw new AuthenticationError('revoked_api_key', 'The API key has been revoked');
    if (row.ancestor_revoked === 1) {
      throw new AuthenticationError('revoked_api_key', 'The API key was revoked with the key that created it');
    }
    const derived = this.#derivedOf(row);
    const nowMs = now.getTime();
    if (derived.expiresMs !== null && derived.expiresMs <= nowMs) {
      throw new AuthenticationError('expired_api_key', `The API key expired at ${row.expires_at}`);
    }
    if (derived.ancestorExpiresMs !== null && derived.ancestorExpiresMs <= nowMs) {
      throw new AuthenticationError('expired_api_key', `The key that created it expired at ${row.ancestor_expires_at}`);
    }
    if (derived.lastUsedMs === null || nowMs - derived.lastUsedMs >= lastUsedResolutionMs) {
      row.last_used_at = now.toISOString();
      derived.lastUsedMs = nowMs;
      this.keys.touch(row.id, row.last_used_at); // the cached row follows: that column moves no generation
    }
    return (derived.principal ??= toPrincipal(row));
  }

  #derivedOf(row: ApiKeyAuthRow): KeyRowDerived {
    let derived = this.#derived.get(row);
    if (derived === undefined) {
      derived = {
        expiresMs: row.expires_at === null ? null : Date.parse(row.expires_at),
        ancestorExpiresMs: row.ancestor_expires_at === null ? null : Date.parse(row.ancestor_expires_at),
        lastUsedMs: row.last_used_at === null ? null : Date.parse(row.last_used_at),
        principal: undefined,
      };
      this.#derived.set(row, derived);
    }
    return derived;
  }

  /** A key made through the API: never broader than the key that asks for it, and revoked with it. */
  createFor(principal: Principal, input: NewApiKey, now: Date, client: RequestClient): CreatedApiKey {
    if (!allows(principal.access, input.permission)) {
      throw new PermissionError('A key cannot create a key with more permission than itself');
    }
    const scopes = input.scopes ?? defaultScopes.filter((scope) => principal.scopes.includes(scope));
    const outside = scopes.find((scope) => !principal.scopes.includes(scope));
    if (outside !== undefined) throw new PermissionError(`A key cannot grant the scope ${outside}, which it does not have`);
    const owner = this.ownerFor(principal, input, now);
    // A key made in a browser session is the user's own: a session is no key to inherit from or be revoked with.
    const origin = originOf(principal, client);
    if (principal.credential.kind === 'session') return this.create(principal.orgId, owner, { ...input, scopes }, now, null, origin);
    const parent = principal.credential;
    const expiresAt = input.expires_at ?? parent.expiresAt ?? undefined;
    if (parent.expiresAt !== null && expiresAt !== undefined && Date.parse(expiresAt) > Date.parse(parent.expiresAt)) {
      throw new PermissionError('A key cannot create a key that outlives itself');
    }
    return this.create(principal.orgId, owner, { ...input, scopes, expires_at: expiresAt }, now, parent.id, origin);
  }

  /** Operator path (CLI, first start): no caller to stay within, and no parent key unless `parentKeyId`. Audited, never with the key's value. */
  create(
    orgId: string,
    owner: KeyOwner,
    input: NewApiKey,
    now: Date,
    parentKeyId: string | null = null,
    origin: AuditOrigin = operatorOrigin(orgId),
  ): CreatedApiKey {
    if (input.expires_at !== undefined && Date.parse(input.expires_at) <= now.getTime()) {
      throw new InvalidRequestError('invalid_parameter', 'expires_at must be in the future', 'expires_at');
    }
    const token = issueToken(owner.kind);
    const id = newId('key');
    const row: ApiKeyRow = {
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
      parent_key_id: parentKeyId,
    };
    return this.transaction(() => {
      if (!this.keys.insertWithinCap(row, this.maxLivePerOrganization)) {
        throw new ConflictError(
          'limit_reached',
          `The organization has ${this.maxLivePerOrganization} live API keys, the most it may hold; revoke keys it no longer uses`,
        );
      }
      const { name, kind, permission, scopes, expires_at, parent_key_id } = row;
      const details = { name, kind, permission, scopes: JSON.parse(scopes) as Scope[], expires_at, parent_key_id };
      this.audit.record({ origin, action: 'api_key.created', target: { type: 'api_key', id }, details }, now);
      return { row: this.keys.findById(id)!, value: token.value };
    });
  }

  list(principal: Principal, limit: number, offset: number): { rows: ApiKeyListRow[]; total: number } {
    return this.keys.listVisible(principal.orgId, visibility(principal), limit, offset);
  }

  /** For the operator CLI: every key of one organization, or of all of them (null). */
  listAll(orgId: string | null): ApiKeyListRow[] {
    if (orgId !== null) this.identity.requireOrganization(orgId);
    return this.keys.all(orgId);
  }

  revokeFor(principal: Principal, id: string, now: Date, client: RequestClient): void {
    const row = this.keys.findVisible(principal.orgId, id, visibility(principal));
    if (row === undefined) throw new NotFoundError(`No API key ${id}`, 'id');
    this.revoke(row.id, now, originOf(principal, client));
  }

  /** Revokes the key and the keys made through it; audited as the operator's unless `origin` says who. */
  revoke(id: string, now: Date, origin?: AuditOrigin): void {
    const row = this.keys.findById(id);
    if (row === undefined) throw new NotFoundError(`No API key ${id}`, 'id');
    this.transaction(() => {
      if (!this.keys.revoke(id, now.toISOString())) throw new ConflictError('already_revoked', `API key ${id} is already revoked`);
      const details = { name: row.name, kind: row.kind };
      this.audit.record({ origin: origin ?? operatorOrigin(row.org_id), action: 'api_key.revoked', target: { type: 'api_key', id }, details }, now);
    });
  }

  private ownerFor(principal: Principal, input: NewApiKey, now: Date): KeyOwner {
    const { actor } = principal;
    if (actor.kind === 'service_account') {
      const named = input.service_account;
      if (named !== undefined && this.identity.findServiceAccount(principal.orgId, named)?.id !== actor.serviceAccountId) {
        throw new PermissionError('A service-account key can create keys for its own service account only');
      }
      return { kind: 'service_account', serviceAccountId: actor.serviceAccountId };
    }
    if (input.service_account !== undefined) {
      if (!isAdminRole(actor.role)) throw new PermissionError('Only owners and admins can create service-account keys');
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
    return { kind: 'personal', userId: actor.userId };
  }
}

/** Owners and admins see every key of the organization; a service account its own keys; other users their own. */
function visibility(principal: Principal): KeyVisibility {
  const { actor } = principal;
  if (actor.kind === 'service_account') return { user_id: null, service_account_id: actor.serviceAccountId };
  return { user_id: isAdminRole(actor.role) ? null : actor.userId, service_account_id: null };
}

function toPrincipal(row: ApiKeyAuthRow): Principal {
  const actor: Actor =
    row.kind === 'personal'
      ? { kind: 'user', userId: row.user_id!, role: row.user_role! }
      : { kind: 'service_account', serviceAccountId: row.service_account_id! };
  const ceiling = actor.kind === 'user' ? roleAccess(actor.role) : row.service_account_permission!;
  return {
    orgId: row.org_id,
    plan: row.plan,
    customHourlyLimit: row.custom_hourly_limit,
    actor,
    credential: {
      kind: row.kind === 'personal' ? 'personal_token' : 'service_account_key',
      id: row.id,
      permission: row.permission,
      expiresAt: row.expires_at,
    },
    access: narrowerAccess(row.permission, ceiling),
    scopes: JSON.parse(row.scopes) as Scope[],
  };
}
