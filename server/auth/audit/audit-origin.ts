import type { Context } from 'koa';
import { requestClient, type RequestClient } from '../../http/request-client.js';
import { actorId, type CredentialKind, type Principal } from '../principal.js';

export const auditActorTypes = ['user', 'service_account', 'operator'] as const;
export type AuditActorType = (typeof auditActorTypes)[number];

/** Who acts, in which organization, through which credential and from where: the part of an audit entry the caller supplies. */
export interface AuditOrigin {
  orgId: string;
  /** Null when nobody proved who they are (a failed sign-in); the operator has no id. */
  actor: { type: AuditActorType; id: string | null } | null;
  credential: { type: CredentialKind; id: string } | null;
  ip: string | null;
  userAgent: string | null;
}

/** A request made with a credential. */
export function originOf(principal: Principal, client: RequestClient): AuditOrigin {
  const { actor, credential } = principal;
  return {
    orgId: principal.orgId,
    actor: { type: actor.kind, id: actorId(actor) },
    credential: { type: credential.kind, id: credential.id },
    ip: client.ip,
    userAgent: client.userAgent,
  };
}

/** The operator's command line on the server host (and the first start): no credential, no address. */
export function operatorOrigin(orgId: string): AuditOrigin {
  return { orgId, actor: { type: 'operator', id: null }, credential: null, ip: null, userAgent: null };
}

/** A user acting through a one-time link: the link proves who they are, no credential is involved. */
export function linkHolderOrigin(user: { id: string; org_id: string }, client: RequestClient | null): AuditOrigin {
  return { orgId: user.org_id, actor: { type: 'user', id: user.id }, credential: null, ip: client?.ip ?? null, userAgent: client?.userAgent ?? null };
}

/** A request made with a credential, from the request itself. */
export function requestOrigin(ctx: Context, principal: Principal): AuditOrigin {
  return originOf(principal, requestClient(ctx));
}
