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

export interface TwoFactorOverviewProps {
  csrfToken: string;
  enabled: boolean;
  recoveryCodesLeft: number;
  standing: TwoFactorStanding;
  now: Date;
  /** Where to go on: shown as "Skip for now" while the grace period lasts. */
  next?: string | undefined;
  notice?: string | undefined;
  error?: string | undefined;
}

/** `/account/two-factor`: what is set up, and the ways to set up, renew or remove it. */
export function TwoFactorOverview({ csrfToken, enabled, recoveryCodesLeft, standing, now, next, notice, error }: TwoFactorOverviewProps) {
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
          {error}
        </p>
      )}
      {enabled ? (
        <>
          <p>{`An authenticator app is set up. ${recoveryCodesLeft} recovery code${recoveryCodesLeft === 1 ? '' : 's'} left.`}</p>
          <form method="post" action="/account/two-factor/recovery-codes">
            <input type="hidden" name="csrf_token" value={csrfToken} />
            <button type="submit" class="secondary">
              Make new recovery codes
            </button>
          </form>
          <h2>Remove the authenticator app</h2>
          <form method="post" action="/account/two-factor/remove">
            <input type="hidden" name="csrf_token" value={csrfToken} />
            <div class="field">
              <label for="password">Your password</label>
              <input id="password" name="password" type="password" autocomplete="current-password" required aria-describedby={error !== undefined ? 'two-factor-error' : undefined} />
            </div>
            <button type="submit" class="secondary">
              Remove
            </button>
          </form>
        </>
      ) : (
        <>
          <p>A second step at sign-in, a code from an authenticator app on your phone, keeps your account safe even if your password leaks.</p>
          <form method="post" action="/account/two-factor/totp">
            <input type="hidden" name="csrf_token" value={csrfToken} />
            {next !== undefined && <input type="hidden" name="next" value={next} />}
            <button type="submit">Set up an authenticator app</button>
          </form>
          {standing.state === 'grace' && next !== undefined && (
            <p>
              <a href={next}>Skip for now</a>
            </p>
          )}
        </>
      )}
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
      <form method="post" action="/account/two-factor/totp/verify">
        <input type="hidden" name="csrf_token" value={csrfToken} />
        {next !== undefined && <input type="hidden" name="next" value={next} />}
        <div class="field">
          <label for="code">Code from the app</label>
          <input id="code" name="code" inputmode="numeric" pattern="[0-9 ]*" autocomplete="one-time-code" required aria-describedby={error !== undefined ? 'enroll-error' : undefined} />
        </div>
        <button type="submit">Turn on two-factor authentication</button>
      </form>
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
        Keep these somewhere safe, apart from your phone. Each one signs you in once if you lose your authenticator app. They are shown only now;
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
