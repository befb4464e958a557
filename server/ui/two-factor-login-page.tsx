export interface TwoFactorLoginPageProps {
  csrfToken: string;
  next?: string | undefined;
  /** Which form answered last: its field gets the error. */
  kind?: 'totp' | 'recovery_code';
  error?: string | undefined;
}

/** `/login/two-factor`: the code from the authenticator app, or a recovery code instead. */
export function TwoFactorLoginPage({ csrfToken, next, kind = 'totp', error }: TwoFactorLoginPageProps) {
  const hidden = (
    <>
      <input type="hidden" name="csrf_token" value={csrfToken} />
      {next !== undefined && <input type="hidden" name="next" value={next} />}
    </>
  );
  const errorFor = (form: 'totp' | 'recovery_code') => (error !== undefined && kind === form ? 'two-factor-error' : undefined);
  return (
    <section class="card" aria-labelledby="two-factor-title">
      <h1 id="two-factor-title">Two-factor authentication</h1>
      {error !== undefined && (
        <p role="alert" class="alert" id="two-factor-error">
          {error}
        </p>
      )}
      <form method="post" action="/login/two-factor">
        {hidden}
        <input type="hidden" name="kind" value="totp" />
        <div class="field">
          <label for="code">Code from your authenticator app</label>
          <input id="code" name="code" inputmode="numeric" pattern="[0-9 ]*" autocomplete="one-time-code" required aria-describedby={errorFor('totp')} />
        </div>
        <button type="submit">Verify</button>
      </form>
      <details open={kind === 'recovery_code'}>
        <summary>Use a recovery code instead</summary>
        <form method="post" action="/login/two-factor">
          {hidden}
          <input type="hidden" name="kind" value="recovery_code" />
          <div class="field">
            <label for="recovery-code">Recovery code</label>
            <input id="recovery-code" name="code" autocomplete="off" spellcheck={false} required aria-describedby={errorFor('recovery_code')} />
          </div>
          <button type="submit" class="secondary">
            Use recovery code
          </button>
        </form>
      </details>
    </section>
  );
}
