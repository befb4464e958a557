import { SsoEntry } from './sso-entry.js';
import { ProviderButtons, type ProviderChoices } from './provider-buttons.js';

export interface LoginPageProps {
  csrfToken: string;
  /** Where to go once signed in (already checked to be a path of this server). */
  next?: string | undefined;
  /** What was typed, shown again after a refusal. */
  email?: string | undefined;
  error?: string | undefined;
  notice?: string | undefined;
  /** The slug of an organization with SAML enabled: a "Sign in with SSO" entry leads to it. */
  ssoSlug?: string | undefined;
  /** The organization named by `?org=` or `{org_url}/login`, and its sign-in providers. */
  providers?: ProviderChoices | undefined;
}

export function LoginPage({ csrfToken, next, email, error, notice, ssoSlug, providers }: LoginPageProps) {
  return (
    <section class="card" aria-labelledby="login-title">
      <h1 id="login-title">Sign in to dbmon</h1>
      {notice !== undefined && (
        <p role="status" class="notice">
          {notice}
        </p>
      )}
      {error !== undefined && (
        <p role="alert" class="alert" id="login-error">
          {error}
        </p>
      )}
      <form method="post" action="/login">
        <input type="hidden" name="csrf_token" value={csrfToken} />
        {next !== undefined && <input type="hidden" name="next" value={next} />}
        <div class="field">
          <label for="email">Email</label>
          <input
            id="email"
            name="email"
            type="email"
            autocomplete="username"
            required
            value={email}
            aria-describedby={error !== undefined ? 'login-error' : undefined}
          />
        </div>
        <div class="field">
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required />
        </div>
        <button type="submit">Sign in</button>
      </form>
      {ssoSlug !== undefined && <SsoEntry slug={ssoSlug} next={next} />}
      <ProviderButtons choices={providers} next={next} />
      <p class="muted after-form">
        <a href="/password-reset">Forgot your password?</a>
      </p>
    </section>
  );
}
