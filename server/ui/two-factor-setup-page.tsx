import type { ComponentChildren } from 'preact';
import { NumericCodeForm } from './numeric-code-form.js';
import type { TotpEnrollment } from '../auth/two-factor/two-factor-service.js';
import type { TwoFactorStanding } from '../auth/two-factor/two-factor-standing.js';

/** Why the page is shown: the organization's requirement, and the days left to meet it. */
function RequirementNotice({ standing, now }: { standing: TwoFactorStanding; now: Date }) {
  if (standing.state === 'satisfied') return null;
  if (standing.state === 'required') {
    return (
      <p role="alert" class="alert">
        Your organization requires two-factor authentication. Set it up to go on using dbmon.
      </p>
    );
  }
  const days = Math.max(1, Math.ceil((standing.deadline.getTime() - now.getTime()) / 86_400_000));
  return (
    <p role="status" class="notice">
      {`Your organization requires two-factor authentication: set it up within ${days} day${days === 1 ? '' : 's'}, after which you can only use dbmon once it is set up.`}
    </p>
  );
}

/** The user's factors as the overview shows them. */
export interface FactorsShown {
  totp: boolean;
  /** The last two digits of the confirmed phone; undefined without one. */
  smsEnding: string | undefined;
  /** The server has an SMS sender: a phone can be added. */
  smsAvailable: boolean;
  recoveryCodesLeft: number;
}

export interface TwoFactorOverviewProps {
  csrfToken: string;
  factors: FactorsShown;
  standing: TwoFactorStanding;
  now: Date;
  /** Where to go on: shown as "Skip for now" while the grace period lasts. */
  next?: string | undefined;
  notice?: string | undefined;
  /** What went wrong, and the form it belongs to (its field points at the message). */
  error?: { form: 'totp' | 'sms' | 'phone'; message: string } | undefined;
  /** The number as typed, shown again when it was refused. */
  phone?: string | undefined;
}

/** `/account/two-factor`: the authenticator app, SMS as a backup, the recovery codes; each set up, renewed or removed here. */
export function TwoFactorOverview({ csrfToken, factors, standing, now, next, notice, error, phone }: TwoFactorOverviewProps) {
  const csrf = <input type="hidden" name="csrf_token" value={csrfToken} />;
  const nextField = next !== undefined && <input type="hidden" name="next" value={next} />;
  const describedBy = (form: 'totp' | 'sms' | 'phone') => (error?.form === form ? 'two-factor-error' : undefined);
  const enabled = factors.totp || factors.smsEnding !== undefined;
  return (
    <section class="card" aria-labelledby="two-factor-title">
      <h1 id="two-factor-title">Two-factor authentication</h1>
      <RequirementNotice standing={standing} now={now} />
      {notice !== undefined && (
        <p role="status" class="notice">
          {notice}
        </p>
      )}
      {error !== undefined && (
        <p role="alert" class="alert" id="two-factor-error">
          {error.message}
        </p>
      )}
      <h2>Authenticator app</h2>
      {factors.totp ? (
        <>
          <p>An authenticator app is set up.</p>
          <PasswordForm action="/account/two-factor/totp/remove" id="totp-password" csrf={csrf} describedBy={describedBy('totp')} button="Remove the app" />
        </>
      ) : (
        <>
          <p>A second step at sign-in, a code from an authenticator app on your phone, keeps your account safe even if your password leaks.</p>
          <form method="post" action="/account/two-factor/totp">
            {csrf}
            {nextField}
            <button type="submit">Set up an authenticator app</button>
          </form>
        </>
      )}
      {(factors.smsAvailable || factors.smsEnding !== undefined) && (
        <>
          <h2>Text messages (SMS)</h2>
          <SmsRisks />
          {factors.smsEnding !== undefined ? (
            <>
              <p>{`Codes are texted to your number ending in ${factors.smsEnding}.`}</p>
              <PasswordForm action="/account/two-factor/sms/remove" id="sms-password" csrf={csrf} describedBy={describedBy('sms')} button="Remove the phone" />
            </>
          ) : (
            <form method="post" action="/account/two-factor/sms">
              {csrf}
              {nextField}
              <div class="field">
                <label for="phone">Phone number, with country code</label>
                <input id="phone" name="phone" type="tel" autocomplete="tel" placeholder="+14155550100" value={phone} required aria-describedby={describedBy('phone')} />
              </div>
              <button type="submit" class={factors.totp ? undefined : 'secondary'}>
                Text me a code
              </button>
            </form>
          )}
        </>
      )}
      {enabled && (
        <>
          <h2>Recovery codes</h2>
          <p>{`${factors.recoveryCodesLeft} recovery code${factors.recoveryCodesLeft === 1 ? '' : 's'} left.`}</p>
          <form method="post" action="/account/two-factor/recovery-codes">
            {csrf}
            <button type="submit" class="secondary">
              Make new recovery codes
            </button>
          </form>
        </>
      )}
      {!enabled && standing.state === 'grace' && next !== undefined && (
        <p>
          <a href={next}>Skip for now</a>
        </p>
      )}
    </section>
  );
}

/** Why a phone is the weaker factor, and what to do about it (NIST SP 800-63B calls SMS a restricted authenticator). */
function SmsRisks() {
  return (
    <p>
      A code sent by text message is weaker than one from an app: someone who talks your mobile carrier into moving your number to their SIM card (a SIM
      swap), or who can read your messages on their way, receives your codes too. NIST's guidelines (SP 800-63B) restrict SMS for that reason. Set up an
      authenticator app first and keep your phone as a backup for the day the app is out of reach.
    </p>
  );
}

interface PasswordFormProps {
  action: string;
  id: string;
  /** The session's CSRF token field. */
  csrf: ComponentChildren;
  describedBy: string | undefined;
  button: string;
}

/** Removing a factor: the password again, whatever signed this session in. */
function PasswordForm({ action, id, csrf, describedBy, button }: PasswordFormProps) {
  return (
    <form method="post" action={action}>
      {csrf}
      <div class="field">
        <label for={id}>Your password</label>
        <input id={id} name="password" type="password" autocomplete="current-password" required aria-describedby={describedBy} />
      </div>
      <button type="submit" class="secondary">
        {button}
      </button>
    </form>
  );
}

/** The hidden fields of a form that confirms a new factor: the session's CSRF token and where to go on. */
function ConfirmHidden({ csrfToken, next }: { csrfToken: string; next: string | undefined }) {
  return (
    <>
      <input type="hidden" name="csrf_token" value={csrfToken} />
      {next !== undefined && <input type="hidden" name="next" value={next} />}
    </>
  );
}

export interface SmsVerifyPageProps {
  csrfToken: string;
  /** The last two digits of the number the code went to. */
  phoneEnding: string;
  next?: string | undefined;
  error?: string | undefined;
}

/** The code texted to the new number, which makes it count. */
export function SmsVerifyPage({ csrfToken, phoneEnding, next, error }: SmsVerifyPageProps) {
  return (
    <section class="card" aria-labelledby="sms-verify-title">
      <h1 id="sms-verify-title">Confirm your phone number</h1>
      <p role="status">{`We sent a code to your number ending in ${phoneEnding}. It works for 10 minutes.`}</p>
      {error !== undefined && (
        <p role="alert" class="alert" id="sms-verify-error">
          {error}
        </p>
      )}
      <NumericCodeForm
        action="/account/two-factor/sms/verify"
        hidden={<ConfirmHidden csrfToken={csrfToken} next={next} />}
        id="sms-code"
        label="Code from the text message"
        button="Turn on text message codes"
        describedBy={error !== undefined ? 'sms-verify-error' : undefined}
      />
      <p>
        <a href="/account/two-factor">Use another number</a>
      </p>
    </section>
  );
}

export interface TotpEnrollPageProps {
  csrfToken: string;
  enrollment: TotpEnrollment;
  next?: string | undefined;
  error?: string | undefined;
}

/** The QR code to scan (the SVG is inline: the pages load no `data:` images), the secret to type instead, and the code that confirms it. */
export function TotpEnrollPage({ csrfToken, enrollment, next, error }: TotpEnrollPageProps) {
  return (
    <section class="card" aria-labelledby="enroll-title">
      <h1 id="enroll-title">Set up an authenticator app</h1>
      <ol>
        <li>Scan this QR code with an authenticator app (such as FreeOTP, Aegis or Google Authenticator).</li>
        <li>Type the 6-digit code the app shows.</li>
      </ol>
      <div class="qr-code" role="img" aria-label="QR code of the authenticator app secret" dangerouslySetInnerHTML={{ __html: enrollment.qrSvg }} />
      <p>Cannot scan it? Enter this key in the app instead:</p>
      <p class="secret">
        <code id="totp-secret">{enrollment.secret.replace(/(.{4})/g, '$1 ').trim()}</code>
      </p>
      {error !== undefined && (
        <p role="alert" class="alert" id="enroll-error">
          {error}
        </p>
      )}
      <NumericCodeForm
        action="/account/two-factor/totp/verify"
        hidden={<ConfirmHidden csrfToken={csrfToken} next={next} />}
        id="code"
        label="Code from the app"
        button="Turn on two-factor authentication"
        describedBy={error !== undefined ? 'enroll-error' : undefined}
      />
    </section>
  );
}

export interface RecoveryCodesPageProps {
  codes: readonly string[];
  /** The response's CSP nonce: the copy button's little script runs with it. */
  nonce: string;
  next: string;
}

/** Shown once: each code signs in once when the phone is not at hand. Copy (a small script) and download (a `data:` link, no script). */
export function RecoveryCodesPage({ codes, nonce, next }: RecoveryCodesPageProps) {
  const text = `dbmon recovery codes\n\n${codes.join('\n')}\n`;
  return (
    <section class="card" aria-labelledby="codes-title">
      <h1 id="codes-title">Your recovery codes</h1>
      <p>
        Keep these somewhere safe, apart from your phone. Each one signs you in once if your second factor is out of reach. They are shown only now;
        making new ones voids these.
      </p>
      <ul class="recovery-codes" id="recovery-codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <p class="actions">
        <button type="button" class="secondary" id="copy-codes" data-codes={text}>
          Copy
        </button>
        <a class="button secondary" href={`data:text/plain;charset=utf-8,${encodeURIComponent(text)}`} download="dbmon-recovery-codes.txt">
          Download
        </a>
        <span role="status" id="copy-status" />
      </p>
      <p>
        <a href={next}>I have saved them, continue</a>
      </p>
      <script
        nonce={nonce}
        dangerouslySetInnerHTML={{
          __html: `document.getElementById('copy-codes').addEventListener('click', function (event) {
  navigator.clipboard.writeText(event.currentTarget.dataset.codes).then(function () { document.getElementById('copy-status').textContent = 'Copied.'; });
});`,
        }}
      />
    </section>
  );
}
