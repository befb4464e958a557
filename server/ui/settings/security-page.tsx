/**
 * `/settings/security` (owners and admins): the organization's session limits, IP allowlist and two-factor
 * requirement (web/settings-security.ts reads and writes /v1/org/settings), and the ways to the other sign-in settings.
 */
export function SecurityPage() {
  return (
    <>
      <form id="security-form" class="card" aria-busy="true">
        <h2>Sessions</h2>
        <NumberField name="session_idle_timeout_minutes" label="End a session idle for (minutes)" min={5} max={1440} />
        <NumberField name="session_max_duration_hours" label="End every session after (hours)" min={1} max={720} />
        <NumberField name="max_concurrent_sessions" label="Sessions per user at most (a sign-in past it ends the oldest)" min={1} max={100} />
        <h2>Two-factor authentication</h2>
        <label class="check">
          <input type="checkbox" name="require_two_factor" id="require_two_factor" />
          Require every user to use a second factor
        </label>
        <NumberField name="two_factor_grace_period_days" label="Days a user has to set one up (grace period)" min={0} max={90} />
        <h2>IP allowlist</h2>
        <div class="field">
          <label for="ip_allowlist">Addresses and CIDR ranges allowed to use the dashboard and the API, one a line (empty: any)</label>
          <textarea id="ip_allowlist" name="ip_allowlist" rows={5} aria-describedby="ip-allowlist-hint"></textarea>
          <p class="hint" id="ip-allowlist-hint">
            Enterprise plan only. Include the address you are using now, or this browser is signed out at its next request.
          </p>
        </div>
        <p role="status" id="security-status">
          Loading…
        </p>
        <button type="submit">Save</button>
      </form>
      <h2>Other sign-in settings</h2>
      <ul>
        <li>
          <a href="/settings/saml">Single sign-on (SAML)</a>
        </li>
        <li>
          <a href="/settings/sign-in-providers">Sign-in through GitHub, Google, Microsoft or GitLab</a>
        </li>
        <li>
          <a href="/account/two-factor">Your own two-factor authentication</a>
        </li>
        <li>
          <a href="/settings/oauth-applications">OAuth applications</a>
        </li>
      </ul>
    </>
  );
}

function NumberField({ name, label, min, max }: { name: string; label: string; min: number; max: number }) {
  return (
    <div class="field">
      <label for={name}>{label}</label>
      <input id={name} name={name} type="number" inputMode="numeric" min={min} max={max} step={1} required />
    </div>
  );
}
