import { FormError, formErrorId, NewPasswordField } from './new-password-field.js';

export interface PasswordResetPageProps {
  csrfToken: string;
  email: string;
  error?: string | undefined;
}

/** `{auth_url}/password-reset/{token}`: a new password for the account; every other session ends. */
export function PasswordResetPage({ csrfToken, email, error }: PasswordResetPageProps) {
  return (
    <section class="card" aria-labelledby="reset-title">
      <h1 id="reset-title">Choose a new password</h1>
      <p>{`For ${email}. Saving it signs you out everywhere else and signs you in here.`}</p>
      <FormError error={error} />
      <form method="post">
        <input type="hidden" name="csrf_token" value={csrfToken} />
        <input type="hidden" name="email" value={email} autocomplete="username" />
        <NewPasswordField label="New password" errorId={error === undefined ? undefined : formErrorId} />
        <button type="submit">Save and sign in</button>
      </form>
    </section>
  );
}
