import type { ComponentChildren } from 'preact';
import type { SecondFactorKind } from '../auth/two-factor/two-factor-service.js';

export interface TwoFactorLoginPageProps {
  csrfToken: string;
  next?: string | undefined;
  /** Which form answered last: its field gets the error. */
  kind?: SecondFactorKind;
  error?: string | undefined;
  /** The user has a confirmed phone: a code can be texted on request. */
  smsOffered?: boolean;
  /** A code was just texted to the number ending in these digits. */
  smsSentTo?: string | undefined;
}

/** `/login/two-factor`: the code from the authenticator app, or one texted on request, or a recovery code instead. */
export function TwoFactorLoginPage({ csrfToken, next, kind = 'totp', error, smsOffered = false, smsSentTo }: TwoFactorLoginPageProps) {
  const hidden = (
    <>
      <input type="hidden" name="csrf_token" value={csrfToken} />
      {next !== undefined && <input type="hidden" name="next" value={next} />}
    </>
  );
  const errorFor = (form: SecondFactorKind) => (error !== undefined && kind === form ? 'two-factor-error' : undefined);
  return (
    <section class="card" aria-labelledby="two-factor-title">
      <h1 id="two-factor-title">Two-factor authentication</h1>
      {error !== undefined && (
        <p role="alert" class="alert" id="two-factor-error">
          {error}
        </p>
      )}
      <NumericCodeForm kind="totp" id="code" label="Code from your authenticator app" button="Verify" hidden={hidden} describedBy={errorFor('totp')} />
      {smsOffered && (
        <details open={kind === 'sms'}>
          <summary>Text me a code instead</summary>
          {smsSentTo !== undefined && <p role="status">We sent a code to your phone number ending in {smsSentTo}. It works for 10 minutes.</p>}
          {(smsSentTo !== undefined || kind === 'sms') && (
            <NumericCodeForm kind="sms" id="sms-code" label="Code from the text message" button="Verify text code" hidden={hidden} describedBy={errorFor('sms')} />
          )}
          <form method="post" action="/login/two-factor/sms" class="resend">
            {hidden}
            <button type="submit" class="secondary">
              {smsSentTo === undefined ? 'Send me a code' : 'Send a new code'}
            </button>
          </form>
        </details>
      )}
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

interface NumericCodeFormProps {
  kind: 'totp' | 'sms';
  id: string;
  label: string;
  button: string;
  /** The CSRF token and next path. */
  hidden: ComponentChildren;
  describedBy: string | undefined;
}

/** A 6-digit code typed (or filled in by the phone) for one kind of factor. */
function NumericCodeForm({ kind, id, label, button, hidden, describedBy }: NumericCodeFormProps) {
  return (
    <form method="post" action="/login/two-factor">
      {hidden}
      <input type="hidden" name="kind" value={kind} />
      <div class="field">
        <label for={id}>{label}</label>
        <input id={id} name="code" inputmode="numeric" pattern="[0-9 ]*" autocomplete="one-time-code" required aria-describedby={describedBy} />
      </div>
      <button type="submit">{button}</button>
    </form>
  );
}
