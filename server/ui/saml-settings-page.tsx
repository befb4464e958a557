import type { SamlSettings } from '../auth/saml/saml-schema.js';
import { roles } from '../auth/permissions.js';

export interface SamlSettingsPageProps {
  csrfToken: string;
  settings: SamlSettings;
  notice?: string | undefined;
  error?: string | undefined;
}

/** `/settings/saml`: what to give the identity provider, what it gave us, how its answers map to our users, and the test that must pass before enabling. */
export function SamlSettingsPage({ csrfToken, settings, notice, error }: SamlSettingsPageProps) {
  const status = settings.enabled ? 'Enabled: members sign in through SAML; owners may still use their password.' : 'Not enabled.';
  return (
    <section class="card" aria-labelledby="saml-title">
      <h1 id="saml-title">Single sign-on (SAML)</h1>
      {notice !== undefined && (
        <p role="status" class="notice">
          {notice}
        </p>
      )}
      {error !== undefined && (
        <p role="alert" class="alert" id="saml-error">
          {error}
        </p>
      )}
      <p>{`${status} ${settings.tested_at === null ? 'Not tested since the last change.' : `Test passed ${settings.tested_at}.`}`}</p>
      <h2>Give these to your identity provider</h2>
      <dl>
        <dt>Entity ID</dt>
        <dd>{settings.sp_entity_id}</dd>
        <dt>ACS URL</dt>
        <dd>{settings.acs_url}</dd>
        <dt>Start URL</dt>
        <dd>{settings.start_url}</dd>
        <dt>Metadata</dt>
        <dd>
          <a href={settings.metadata_url}>{settings.metadata_url}</a>
        </dd>
      </dl>
      {settings.certificate !== null && (
        <>
          <h2>Identity provider certificate</h2>
          <dl>
            <dt>Subject</dt>
            <dd>{settings.certificate.subject}</dd>
            <dt>Valid until</dt>
            <dd>{settings.certificate.not_after}</dd>
            <dt>Key</dt>
            <dd>{`${settings.certificate.key_type.toUpperCase()} ${settings.certificate.key_size} bits`}</dd>
            <dt>SHA-256 fingerprint</dt>
            <dd id="saml-fingerprint">{settings.certificate.fingerprint_sha256}</dd>
          </dl>
        </>
      )}
      <h2>Identity provider</h2>
      <form method="post" action="/settings/saml">
        <input type="hidden" name="csrf_token" value={csrfToken} />
        <TextField name="idp_sso_url" label="SSO URL" value={settings.idp_sso_url} required />
        <TextField name="idp_entity_id" label="Entity ID (issuer)" value={settings.idp_entity_id} required />
        <div class="field">
          <label for="idp_certificate">X.509 certificate (PEM)</label>
          <textarea id="idp_certificate" name="idp_certificate" rows={8} required>
            {settings.idp_certificate}
          </textarea>
        </div>
        <h2>Attributes</h2>
        <TextField name="attribute_email" label="Email attribute" value={settings.attribute_mapping.email} required />
        <TextField name="attribute_name" label="Name attribute" value={settings.attribute_mapping.name} required />
        <TextField name="attribute_role" label="Role attribute" value={settings.attribute_mapping.role} required />
        {roles.map((role) => (
          <TextField name={`role_values_${role}`} label={`Role values that give ${role} (comma-separated)`} value={(settings.role_values[role] ?? []).join(', ')} />
        ))}
        <div class="field">
          <label for="default_role">Role for any other value</label>
          <select id="default_role" name="default_role">
            {roles.map((role) => (
              <option value={role} selected={settings.default_role === role}>
                {role}
              </option>
            ))}
          </select>
        </div>
        <Check name="jit_provisioning" label="Create an account at the first sign-in of an unknown email" checked={settings.jit_provisioning} />
        <Check name="allow_idp_initiated" label="Accept sign-ins started at the identity provider" checked={settings.allow_idp_initiated} />
        <Check name="sso_satisfies_two_factor" label="Accept the identity provider's sign-in as both factors" checked={settings.sso_satisfies_two_factor} />
        <Check name="enabled" label="Enabled (needs a passed test of these settings)" checked={settings.enabled} />
        <button type="submit">Save</button>
      </form>
      {settings.updated_at !== null && (
        <form method="post" action="/settings/saml/test" class="after-form">
          <input type="hidden" name="csrf_token" value={csrfToken} />
          <button type="submit" class="secondary">
            Test with the identity provider
          </button>
        </form>
      )}
    </section>
  );
}

function TextField({ name, label, value, required = false }: { name: string; label: string; value: string; required?: boolean }) {
  return (
    <div class="field">
      <label for={name}>{label}</label>
      <input id={name} name={name} type="text" value={value} required={required} />
    </div>
  );
}

function Check({ name, label, checked }: { name: string; label: string; checked: boolean }) {
  return (
    <label class="check">
      <input type="checkbox" name={name} value="on" checked={checked} />
      {label}
    </label>
  );
}
