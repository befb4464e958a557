import { newId } from '../../crypto/new-id.js';
import { isSecretToken, newSecretToken } from '../../crypto/secret-token.js';
import { AuthenticationError, NotFoundError } from '../../errors.js';
import type { Transaction } from '../../storage/open-database.js';
import type { RequestClient } from '../../http/request-client.js';
import { hashToken } from '../api-keys/api-key-token.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { AuditOrigin } from '../audit/audit-origin.js';
import { roleAccess, scopes, type Role, type Scope } from '../permissions.js';
import type { Principal } from '../principal.js';
import type { SessionListRow, SessionPolicy, SessionRow, SessionsRepository } from './sessions-repository.js';

/** A session acts in the whole API as its user, but never as an agent. */
const sessionScopes: readonly Scope[] = scopes.filter((scope) => scope !== 'agent');

/** Expired sessions one expiry slice deletes at most (a bounded delete of a few milliseconds). */
export const sessionExpiryBatch = 1000;

/** last_active_at is written at most this often per session; the idle timer may so end a session up to this much early, never late. */
const lastActiveResolutionMs = 60_000;

export interface SessionLimits extends SessionPolicy {
  max_concurrent_sessions: number;
}

export type SessionClient = RequestClient;

export interface SessionUser {
  id: string;
  role: Role;
}

/** A session just started: `token` is the cookie's value, shown this once; only its hash is stored. */
export interface StartedSession {
  id: string;
  token: string;
  csrfToken: string;
}

export interface AuthenticatedSession {
  principal: Principal;
  csrfToken: string;
  /** A new cookie value when the user's role changed since the id was issued (the old one no longer works). */
  renewedToken?: string;
}

export interface ListedSession extends SessionListRow {
  expires_at: string;
}

/**
 * Server-side browser sessions. The idle timeout and maximum duration are the organization's, read
 * with the session at every request, so shortening them ends existing sessions at once.
 */
export class SessionsService {
  constructor(
    private readonly sessions: SessionsRepository,
    /** The organization's current session settings. */
    private readonly limitsOf: (orgId: string) => SessionLimits,
    private readonly transaction: Transaction,
    private readonly audit: AuditLog,
  ) {}

  /** A new session for a user who just proved who they are; past the organization's limit the oldest sessions end. */
  start(user: SessionUser & { org_id: string }, client: SessionClient, now: Date): StartedSession {
    const limits = this.limitsOf(user.org_id);
    const token = newSecretToken();
    const row: SessionRow = {
      id: newId('sess'),
      user_id: user.id,
      token_hash: hashToken(token),
      csrf_token: newSecretToken(),
      role: user.role,
      ip: client.ip,
      user_agent: client.userAgent,
      created_at: now.toISOString(),
      last_active_at: now.toISOString(),
    };
    this.transaction(() => {
      const live = this.sessions.ofUser(user.id).filter((session) => {
        if (expiresAt(session, limits) > now.getTime()) return true;
        this.sessions.delete(session.id);
        return false;
      });
      for (const oldest of live.slice(0, Math.max(0, live.length - limits.max_concurrent_sessions + 1))) this.sessions.delete(oldest.id);
      this.sessions.insert(row);
    });
    return { id: row.id, token, csrfToken: row.csrf_token };
  }

  /** Resolves a cookie's value to the rights in force now; throws AuthenticationError when it names no live session. */
  authenticate(token: string, now: Date): AuthenticatedSession {
    const row = isSecretToken(token) ? this.sessions.findForAuth(hashToken(token)) : undefined;
    if (row === undefined) throw new AuthenticationError('invalid_session', 'The session is not valid; sign in again');
    if (row.user_status !== 'active') {
      this.sessions.delete(row.id);
      throw new AuthenticationError('invalid_session', 'The session has ended; sign in again');
    }
    if (expiresAt(row, row) <= now.getTime()) {
      this.sessions.delete(row.id);
      throw new AuthenticationError('session_expired', 'The session has expired; sign in again');
    }
    let renewedToken: string | undefined;
    if (row.role !== row.user_role) {
      renewedToken = newSecretToken();
      this.sessions.renew(row.id, hashToken(renewedToken), row.user_role, now.toISOString());
    } else if (now.getTime() - Date.parse(row.last_active_at) >= lastActiveResolutionMs) {
      this.sessions.touch(row.id, now.toISOString());
    }
    const principal: Principal = {
      orgId: row.org_id,
      plan: row.plan,
      customHourlyLimit: row.custom_hourly_limit,
      actor: { kind: 'user', userId: row.user_id, role: row.user_role },
      credential: { kind: 'session', id: row.id, permission: 'write', expiresAt: null },
      access: roleAccess(row.user_role),
      scopes: sessionScopes,
    };
    return { principal, csrfToken: row.csrf_token, ...(renewedToken !== undefined && { renewedToken }) };
  }

  /** The user's live sessions, oldest first. */
  list(orgId: string, userId: string, now: Date): ListedSession[] {
    const limits = this.limitsOf(orgId);
    return this.sessions
      .ofUser(userId)
      .map((session) => ({ ...session, expires_at: new Date(expiresAt(session, limits)).toISOString() }))
      .filter((session) => Date.parse(session.expires_at) > now.getTime());
  }

  /** Ends one of the user's sessions; another user's is as unknown as a made-up id. */
  revoke(origin: AuditOrigin, userId: string, id: string, now: Date): void {
    this.transaction(() => {
      if (!this.sessions.deleteOfUser(id, userId)) throw new NotFoundError(`No session ${id}`, 'id');
      this.audit.record({ origin, action: 'session.revoked', target: { type: 'session', id }, details: { user_id: userId } }, now);
    });
  }

  /** Ends every session of the user but `keepId` (null: all of them, as when the user is disabled or changes password from a token). */
  revokeOthers(origin: AuditOrigin, userId: string, keepId: string | null, now: Date): number {
    return this.transaction(() => {
      const count = this.sessions.deleteOthersOfUser(userId, keepId);
      if (count > 0) this.audit.record({ origin, action: 'session.revoked_others', target: { type: 'user', id: userId }, details: { count } }, now);
      return count;
    });
  }

  /** Ends the session whose cookie carries `token`, if any (signing in again in the same browser). */
  end(token: string): void {
    const row = isSecretToken(token) ? this.sessions.findForAuth(hashToken(token)) : undefined;
    if (row !== undefined) this.sessions.delete(row.id);
  }

  /** The user signs out: the session ends, recorded in the audit log. */
  signOut(origin: AuditOrigin, sessionId: string, now: Date): void {
    this.transaction(() => {
      if (this.sessions.delete(sessionId)) this.audit.record({ origin, action: 'session.signed_out', target: { type: 'session', id: sessionId } }, now);
    });
  }

  /**
   * Deletes sessions past their organization's idle timeout or maximum duration, at most `batch`:
   * requests refuse them anyway; this keeps the table to the live ones. How many went.
   */
  expire(now: Date, batch = sessionExpiryBatch): number {
    return this.sessions.deleteExpired(now.toISOString(), batch);
  }

  csrfToken(id: string): string | undefined {
    return this.sessions.csrfToken(id);
  }
}

/** The earlier of the idle deadline (last activity + timeout) and the absolute one (start + maximum duration), in ms. */
function expiresAt(session: Pick<SessionRow, 'created_at' | 'last_active_at'>, policy: SessionPolicy): number {
  return Math.min(
    Date.parse(session.last_active_at) + policy.session_idle_timeout_minutes * 60_000,
    Date.parse(session.created_at) + policy.session_max_duration_hours * 3_600_000,
  );
}
