import { defaultOAuthScopes, oauthScopes, scopeDescriptions } from '../../auth/oauth/oauth-scopes.js';
import { ConfirmDialog, ListTable, ShownOnce } from './shown-once.js';

/**
 * `/settings/oauth-applications`: the organization's OAuth applications, a form to register one (its
 * client secret shown once) and deletion after a confirmation. web/settings-oauth-applications.ts
 * fills and drives it through /v1/oauth/applications.
 */
export function OAuthApplicationsPage() {
  return (
    <>
      <p>
        Applications that ask your users, on a consent page, to act for them through the API. A user never grants more than their own role allows.
      </p>
      <form id="oauth-app-form" class="card">
        <h2>Register an application</h2>
        <div class="field">
          <label for="oauth-app-name">Name (shown to users on the consent page)</label>
          <input id="oauth-app-name" name="name" type="text" maxLength={100} required />
        </div>
        <div class="field">
          <label for="oauth-app-redirects">Redirect URIs, one a line (https, or http on a loopback address; matched exactly)</label>
          <textarea id="oauth-app-redirects" name="redirect_uris" rows={3} required></textarea>
        </div>
        <fieldset>
          <legend>Client type</legend>
          <label class="check">
            <input type="radio" name="type" value="confidential" checked />
            Confidential (a server that keeps a client secret)
          </label>
          <label class="check">
            <input type="radio" name="type" value="public" />
            Public (a native or browser application: no secret, PKCE required)
          </label>
        </fieldset>
        <fieldset>
          <legend>Scopes users may grant it</legend>
          {oauthScopes.map((scope) => (
            <label class="check" key={scope}>
              <input type="checkbox" name="scopes" value={scope} checked={defaultOAuthScopes.includes(scope)} />
              <code>{scope}</code>: {scopeDescriptions[scope]}
            </label>
          ))}
        </fieldset>
        <p role="alert" class="alert" id="oauth-app-error" hidden></p>
        <button type="submit">Register</button>
      </form>
      <ShownOnce
        id="oauth-app"
        title="The client secret"
        warning="Copy it now: it is shown this once and cannot be read again. Register the application again if it is lost."
        label="Client secret"
      />
      <h2 id="oauth-apps-title">Applications</h2>
      <p role="status" id="oauth-apps-status">
        Loading…
      </p>
      <ListTable tableId="oauth-apps-table" rowsId="oauth-app-rows" labelledBy="oauth-apps-title" columns={['Name', 'Client id', 'Type', 'Scopes', 'Redirect URIs', 'Created']} />
      <ConfirmDialog id="oauth-app-delete" title="Delete this application?" confirm="Delete" />
    </>
  );
}

/**
 * `/settings/authorized-applications`: the applications the viewer has authorized, each revocable.
 * web/settings-authorized-applications.ts fills it through /v1/user/authorizations.
 */
export function AuthorizedApplicationsPage() {
  return (
    <>
      <p>Applications you allowed to use the API for you. Revoking one stops its tokens at once.</p>
      <p role="status" id="authorizations-status">
        Loading…
      </p>
      <ListTable tableId="authorizations-table" rowsId="authorization-rows" label="Applications you authorized" columns={['Application', 'Owner', 'Scopes', 'Authorized']} />
      <ConfirmDialog id="authorization-revoke" title="Revoke this application?" confirm="Revoke" />
    </>
  );
}
