import type { Plan } from './identity/plans.js';
import type { Access, Role, Scope } from './permissions.js';

/** How a request proved who it is; routes name the kinds they accept. */
export const credentialKinds = ['personal_token', 'service_account_key', 'session', 'oauth_token'] as const;
export type CredentialKind = (typeof credentialKinds)[number];

/** What acts for a person (the account security endpoints accept only these): their browser session or a personal token. */
export const personCredentials: readonly CredentialKind[] = ['session', 'personal_token'];

/** Who acts: a user (with their role at request time) or a service account. */
export type Actor = { kind: 'user'; userId: string; role: Role } | { kind: 'service_account'; serviceAccountId: string };

export interface Credential {
  kind: CredentialKind;
  /** `key_...`, `sess_...`, or for an OAuth access token the user's authorization of the application, `authz_...`. */
  id: string;
  /** What the credential itself was granted; `Principal.access` may be narrower (the user's role, the service account's permission). */
  permission: Access;
  /** When an API key or OAuth access token expires; null for keys without expiry and for sessions (their expiry moves with use). */
  expiresAt: string | null;
}

/** Who is calling, through which credential, with the rights in force for this request (role ∩ permission ∩ scopes). */
export interface Principal {
  orgId: string;
  plan: Plan;
  customHourlyLimit: number | null;
  actor: Actor;
  credential: Credential;
  access: Access;
  scopes: readonly Scope[];
}

/** The acting user's or service account's id; they carry their kind (`usr_`, `sa_`), so the two never collide. */
export function actorId(actor: Actor): string {
  return actor.kind === 'user' ? actor.userId : actor.serviceAccountId;
}

/** The user acting, or undefined for a service account. */
export function actingUser(principal: Principal): { userId: string; role: Role } | undefined {
  return principal.actor.kind === 'user' ? principal.actor : undefined;
}
