import type { ComponentChildren } from 'preact';

export interface NumericCodeFormProps {
  action: string;
  /** The form's hidden fields: the CSRF token, the next path, what the code is for. */
  hidden: ComponentChildren;
  id: string;
  label: string;
  button: string;
  describedBy: string | undefined;
}

/** A 6-digit code typed (or filled in by the phone) from an authenticator app or a text message. */
export function NumericCodeForm({ action, hidden, id, label, button, describedBy }: NumericCodeFormProps) {
  return (
    <form method="post" action={action}>
      {hidden}
      <div class="field">
        <label for={id}>{label}</label>
        <input id={id} name="code" inputmode="numeric" pattern="[0-9 ]*" autocomplete="one-time-code" required aria-describedby={describedBy} />
      </div>
      <button type="submit">{button}</button>
    </form>
  );
}
