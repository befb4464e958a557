import type { CredentialCheck } from '../auth/providers/provider-client.js';
import { providerKinds, providerNames, type ProviderKind } from '../auth/providers/provider-kinds.js';

/** One provider as the page shows it: its saved settings (never the secret), or undefined when not set up. */
export interface ProviderPanel {
  provider: ProviderKind;
  saved?: { client_id: string; base_url: string | null; tenant: string | null; enabled: boolean } | undefined;
  callbackUrl: string;
}

export interface IdentityProvidersPageProps {
  csrfToken: string;
  panels: ProviderPanel[];
  /** What the last action did, shown at its provider. */
  outcome?: { provider: ProviderKind; notice?: string | undefined; error?: string | undefined; check?: CredentialCheck | undefined } | undefined;
}

/** `/settings/sign-in-providers`: each provider's client id and secret, the callback address to register, save and test. */
export function IdentityProvidersPage({ csrfToken, panels, outcome }: IdentityProvidersPageProps) {
  return (
    <section class="card wide" aria-labelledby="providers-title">
      <h1 id="providers-title">Sign-in providers</h1>
      <p class="muted">
        People of your organization can sign in with an account at these providers once its email is verified there and matches their dbmon account.
      </p>
      {providerKinds.map((provider) => (
        <Panel key={provider} csrfToken={csrfToken} panel={panels.find((panel) => panel.provider === provider)!} outcome={outcome?.provider === provider ? outcome : undefined} />
      ))}
    </section>
  );
}

function Panel({ csrfToken, panel, outcome }: { csrfToken: string; panel: ProviderPanel; outcome: IdentityProvidersPageProps['outcome'] }) {
  const { provider, saved, callbackUrl } = panel;
  const name = providerNames[provider];
  const id = (field: string) => `${provider}-${field}`;
  const state = saved === undefined ? 'not set up' : saved.enabled ? 'enabled' : 'set up, not enabled';
  return (
    <section class="provider-panel" aria-labelledby={id('title')}>
      <h2 id={id('title')}>{`${name} (${state})`}</h2>
      {outcome?.notice !== undefined && (
        <p role="status" class="notice">
          {outcome.notice}
        </p>
      )}
      {outcome?.check !== undefined && (
        <p role="status" class={outcome.check.ok ? 'notice' : 'alert'}>
          {`${outcome.check.ok ? 'Test passed' : 'Test failed'}: ${outcome.check.message}.`}
        </p>
      )}
      {outcome?.error !== undefined && (
        <p role="alert" class="alert" id={id('error')}>
          {outcome.error}
        </p>
      )}
      <div class="field">
        <label for={id('callback')}>Callback URL to register at {name}</label>
        <input id={id('callback')} type="text" readonly value={callbackUrl} />
      </div>
      <form method="post" action={`/settings/sign-in-providers/${provider}`}>
        <input type="hidden" name="csrf_token" value={csrfToken} />
        <div class="field">
          <label for={id('client-id')}>Client ID</label>
          <input id={id('client-id')} name="client_id" type="text" autocomplete="off" required value={saved?.client_id} />
        </div>
        <div class="field">
          <label for={id('client-secret')}>Client secret</label>
          <input
            id={id('client-secret')}
            name="client_secret"
            type="password"
            autocomplete="new-password"
            required={saved === undefined}
            aria-describedby={saved === undefined ? undefined : id('secret-hint')}
          />
          {saved !== undefined && (
            <p class="hint muted" id={id('secret-hint')}>
              A secret is saved. Leave this empty to keep it.
            </p>
          )}
        </div>
        {provider === 'gitlab' && (
          <div class="field">
            <label for={id('base-url')}>GitLab address</label>
            <input id={id('base-url')} name="base_url" type="url" placeholder="https://gitlab.com" value={saved?.base_url ?? undefined} />
          </div>
        )}
        {provider === 'microsoft' && (
          <div class="field">
            <label for={id('tenant')}>Tenant (id or domain, or organizations)</label>
            <input id={id('tenant')} name="tenant" type="text" placeholder="organizations" value={saved?.tenant ?? undefined} />
          </div>
        )}
        <div class="field checkbox">
          <input id={id('enabled')} name="enabled" type="checkbox" value="on" checked={saved?.enabled ?? false} />
          <label for={id('enabled')}>Offer on the sign-in page</label>
        </div>
        <button type="submit">{`Save ${name}`}</button>
      </form>
      {saved !== undefined && (
        <div class="actions after-form">
          <form method="post" action={`/settings/sign-in-providers/${provider}/test`}>
            <input type="hidden" name="csrf_token" value={csrfToken} />
            <button type="submit" class="secondary">{`Test ${name}`}</button>
          </form>
          <form method="post" action={`/settings/sign-in-providers/${provider}/remove`}>
            <input type="hidden" name="csrf_token" value={csrfToken} />
            <button type="submit" class="secondary">{`Remove ${name}`}</button>
          </form>
        </div>
      )}
    </section>
  );
}
