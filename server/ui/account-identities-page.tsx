import { providerNames, type ProviderKind } from '../auth/providers/provider-kinds.js';

/** A linked provider account as the page lists it. */
export interface LinkedIdentity {
  id: string;
  provider: ProviderKind;
  email: string;
  linkedAt: string;
}

export interface AccountIdentitiesPageProps {
  csrfToken: string;
  identities: LinkedIdentity[];
  notice?: string | undefined;
  error?: string | undefined;
}

/** `/account/identities`: the provider accounts the viewer signs in with, each with a way to unlink it. */
export function AccountIdentitiesPage({ csrfToken, identities, notice, error }: AccountIdentitiesPageProps) {
  return (
    <section class="card wide" aria-labelledby="identities-title">
      <h1 id="identities-title">Linked accounts</h1>
      <p class="muted">The accounts at sign-in providers you sign in with. Unlinking one leaves your other ways to sign in as they are.</p>
      {notice !== undefined && (
        <p role="status" class="notice">
          {notice}
        </p>
      )}
      {error !== undefined && (
        <p role="alert" class="alert">
          {error}
        </p>
      )}
      {identities.length === 0 ? (
        <p>No account at a sign-in provider is linked to yours.</p>
      ) : (
        <table>
            <thead>
              <tr>
                <th scope="col">Provider</th>
                <th scope="col">Account email</th>
                <th scope="col">Linked at</th>
                <th scope="col">Unlink</th>
              </tr>
            </thead>
            <tbody>
              {identities.map((identity) => (
                <tr key={identity.id}>
                  <td>{providerNames[identity.provider]}</td>
                  <td>{identity.email}</td>
                  <td>
                    <time datetime={identity.linkedAt}>{`${identity.linkedAt.slice(0, 16).replace('T', ' ')} UTC`}</time>
                  </td>
                  <td>
                    <form method="post" action={`/account/identities/${encodeURIComponent(identity.id)}/unlink`}>
                      <input type="hidden" name="csrf_token" value={csrfToken} />
                      <button type="submit" aria-label={`Unlink ${providerNames[identity.provider]} (${identity.email})`}>
                        Unlink
                      </button>
                    </form>
                  </td>
                </tr>
              ))}
            </tbody>
        </table>
      )}
    </section>
  );
}
