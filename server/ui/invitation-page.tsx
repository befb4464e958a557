import { FormError, formErrorId, NewPasswordField } from './new-password-field.js';

export interface InvitationPageProps {
  csrfToken: string;
  email: string;
  organization: string;
  /** What was typed, shown again after a refusal. */
  name?: string | undefined;
  error?: string | undefined;
}

/** `{auth_url}/invitations/{token}`: the invitee chooses a name and a password, and is signed in. */
export function InvitationPage({ csrfToken, email, organization, name, error }: InvitationPageProps) {
  const describedBy = error === undefined ? undefined : formErrorId;
  return (
    <section class="card" aria-labelledby="invitation-title">
      <h1 id="invitation-title">{`Join ${organization} on dbmon`}</h1>
      <p>{`You were invited as ${email}. Choose your name and a password to finish.`}</p>
      <FormError error={error} />
      <form method="post">
        <input type="hidden" name="csrf_token" value={csrfToken} />
        <input type="hidden" name="email" value={email} autocomplete="username" />
        <div class="field">
          <label for="name">Your name</label>
          <input id="name" name="name" type="text" autocomplete="name" required maxLength={200} value={name} aria-describedby={describedBy} />
        </div>
        <NewPasswordField label="Password" errorId={describedBy} />
        <button type="submit">Join and sign in</button>
      </form>
    </section>
  );
}
