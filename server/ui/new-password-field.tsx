import { passwordMaxLength, passwordMinLength } from '../auth/passwords/password-policy.js';

/** The field where someone chooses a password, with the policy said beside it (the browser may offer a generated one). */
export function NewPasswordField({ label, errorId }: { label: string; errorId?: string | undefined }) {
  return (
    <div class="field">
      <label for="password">{label}</label>
      <input
        id="password"
        name="password"
        type="password"
        autocomplete="new-password"
        required
        minLength={passwordMinLength}
        maxLength={passwordMaxLength}
        aria-describedby={errorId === undefined ? 'password-hint' : `password-hint ${errorId}`}
      />
      <p id="password-hint" class="muted hint">{`${passwordMinLength} to ${passwordMaxLength} characters; a common password is refused.`}</p>
    </div>
  );
}

/** A form's refusal, announced to screen readers; fields name it in aria-describedby by `formErrorId`. */
export function FormError({ error }: { error: string | undefined }) {
  if (error === undefined) return null;
  return (
    <p role="alert" class="alert" id={formErrorId}>
      {error}
    </p>
  );
}

export const formErrorId = 'form-error';
