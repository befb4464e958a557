import { scopeDescriptions, type OAuthScope } from '../auth/oauth/oauth-scopes.js';
import type { Role } from '../auth/permissions.js';

export interface ConsentPageProps {
  csrfToken: string;
  application: string;
  /** The organization that registered the application. */
  owner: string;
  scopes: readonly OAuthScope[];
  role: Role;
  /** The authorization request's parameters, posted back with the decision. */
  parameters: Record<string, string>;
}

/** Asks the signed-in user whether an application may act for them, naming it, its owner and each scope in words. */
export function ConsentPage({ csrfToken, application, owner, scopes, role, parameters }: ConsentPageProps) {
  return (
    <section class="card" aria-labelledby="consent-title">
      <h1 id="consent-title">{`Authorize ${application}?`}</h1>
      <p>{`${application}, registered by the organization ${owner}, asks to act for you in dbmon with access to:`}</p>
      <ul class="scopes">
        {scopes.map((scope) => (
          <li key={scope}>{scopeDescriptions[scope]}</li>
        ))}
      </ul>
      <p class="muted">
        {role === 'viewer'
          ? 'It acts with your role, viewer: it can read these but change nothing.'
          : `It acts with your role, ${role}: it can change what you can change there.`}{' '}
        You can withdraw its access at any time.
      </p>
      <form method="post" action="/oauth/authorize">
        <input type="hidden" name="csrf_token" value={csrfToken} />
        {Object.entries(parameters).map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        <div class="actions">
          <button type="submit" name="decision" value="approve">
            Authorize
          </button>
          <button type="submit" name="decision" value="deny" class="secondary">
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}
