import type { ComponentChildren } from 'preact';
import { NumericCodeForm } from './numeric-code-form.js';
import type { SecondFactorOffer } from '../auth/two-factor/second-factor-sign-in.js';
import type { SecondFactorKind } from '../auth/two-factor/two-factor-service.js';

export interface TwoFactorLoginPageProps {
  csrfToken: string;
  next?: string | undefined;
  /** The ways this user has: only those are asked for. */
  offer: SecondFactorOffer;
  /** Which form answered last: its field gets the error. */
  kind?: SecondFactorKind;
  error?: string | undefined;
  /** A code was just texted to the number ending in these digits. */
  smsSentTo?: string | undefined;
}

/**
 * `/login/two-factor`: the first way the user has (the authenticator app before a text message, as
 * SMS is the weaker factor), the others as alternatives, a recovery code last.
 */
export function TwoFactorLoginPage({ csrfToken, next, offer, kind, error, smsSentTo }: TwoFactorLoginPageProps) {
  const hidden = (
    <>
      <input type="hidden" name="csrf_token" value={csrfToken} />
      {next !== undefined && <input type="hidden" name="next" value={next} />}
    </>
  );
  const hiddenFor = (kind: 'totp' | 'sms') => (
    <>
      {hidden}
      <input type="hidden" name="kind" value={kind} />
    </>
  );
  const first: SecondFactorKind = offer.totp ? 'totp' : offer.sms ? 'sms' : 'recovery_code';
  const shown = kind ?? first;
  const errorFor = (form: SecondFactorKind) => (error !== undefined && shown === form ? 'two-factor-error' : undefined);
  /** The first way stands on the page; the others fold away until asked for. */
  const alternative = (form: SecondFactorKind, summary: string, content: ComponentChildren) =>
    form === first ? (
      content
    ) : (
      <details open={shown === form}>
        <summary>{summary}</summary>
        {content}
      </details>
    );
  return (
    <section class="card" aria-labelledby="two-factor-title">
      <h1 id="two-factor-title">Two-factor authentication</h1>
      {error !== undefined && (
        <p role="alert" class="alert" id="two-factor-error">
          {error}
        </p>
      )}
      {offer.totp && <NumericCodeForm action="/login/two-factor" hidden={hiddenFor('totp')} id="code" label="Code from your authenticator app" button="Verify" describedBy={errorFor('totp')} />}
      {offer.sms &&
        alternative(
          'sms',
          'Text me a code instead',
          <>
            {smsSentTo !== undefined ? (
              <p role="status">We sent a code to your phone number ending in {smsSentTo}. It works for 10 minutes.</p>
            ) : (
              <p>We can text a code to your phone.</p>
            )}
            {(smsSentTo !== undefined || kind === 'sms') && (
              <NumericCodeForm action="/login/two-factor" hidden={hiddenFor('sms')} id="sms-code" label="Code from the text message" button="Verify text code" describedBy={errorFor('sms')} />
            )}
            <form method="post" action="/login/two-factor/sms" class="resend">
              {hidden}
              <button type="submit" class={offer.totp || smsSentTo !== undefined ? 'secondary' : undefined}>
                {smsSentTo === undefined ? 'Send me a code' : 'Send a new code'}
              </button>
            </form>
          </>,
        )}
      {offer.recoveryCode &&
        alternative(
          'recovery_code',
          'Use a recovery code instead',
          <form method="post" action="/login/two-factor">
            {hidden}
            <input type="hidden" name="kind" value="recovery_code" />
            <div class="field">
              <label for="recovery-code">Recovery code</label>
              <input id="recovery-code" name="code" autocomplete="off" spellcheck={false} required aria-describedby={errorFor('recovery_code')} />
            </div>
            <button type="submit" class={first === 'recovery_code' ? undefined : 'secondary'}>
              Use recovery code
            </button>
          </form>,
        )}
      {!offer.totp && !offer.sms && !offer.recoveryCode && (
        <p role="alert" class="alert">
          None of your second factors can be used here. Ask an owner or admin of your organization to reset your two-factor authentication.
        </p>
      )}
    </section>
  );
}
