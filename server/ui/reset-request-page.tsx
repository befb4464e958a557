import { FormError, formErrorId } from './new-password-field.js';

export interface ResetRequestPageProps {
  csrfToken: string;
  /** The request was taken: the same words whether or not an account has the email. */
  requested?: boolean;
  error?: string | undefined;
}

/** `{auth_url}/password-reset`: "forgot password", asking for a link by mail. */
export function ResetRequestPage({ csrfToken, requested = false, error }: ResetRequestPageProps) {
  return (
    <section class="card" aria-labelledby="request-title">
      <h1 id="request-title">Reset your password</h1>
      {requested ? (
        <p role="status" class="notice">
          If an account uses this email, a link to choose a new password is on its way to it. The link works once, for 1 hour.
        </p>
      ) : (
        <p>Enter the email you sign in with. We will mail you a link to choose a new password.</p>
      )}
      <FormError error={error} />
      <form method="post" action="/password-reset">
        <input type="hidden" name="csrf_token" value={csrfToken} />
        <div class="field">
          <label for="email">Email</label>
          <input id="email" name="email" type="email" autocomplete="username" required aria-describedby={error === undefined ? undefined : formErrorId} />
        </div>
        <button type="submit">Send the link</button>
      </form>
      <p class="muted after-form">
        No mail arrives? Check the address, or ask an administrator of your organization. <a href="/login">Back to sign in</a>
      </p>
    </section>
  );
}
