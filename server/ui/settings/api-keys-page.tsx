import { accessLevels, defaultScopes, scopes } from '../../auth/permissions.js';
import { ConfirmDialog, ListTable, ShownOnce } from './shown-once.js';

/**
 * `/settings/api-keys`: the viewer's keys (an owner's or admin's: the organization's), a form to make one
 * and the place its value is shown once. web/settings-api-keys.ts fills and drives it through /v1/api-keys.
 */
export function ApiKeysPage() {
  return (
    <>
      <p>Keys let scripts and other programs call the API as you. A key never has more permission than you.</p>
      <form id="api-key-form" class="card">
        <h2>New key</h2>
        <div class="field">
          <label for="api-key-name">Name</label>
          <input id="api-key-name" name="name" type="text" maxLength={100} required />
        </div>
        <div class="field">
          <label for="api-key-permission">Permission</label>
          <select id="api-key-permission" name="permission">
            {accessLevels.map((level) => (
              <option value={level}>{level}</option>
            ))}
          </select>
        </div>
        <fieldset>
          <legend>Scopes</legend>
          {scopes.map((scope) => (
            <label class="check">
              <input type="checkbox" name="scopes" value={scope} checked={defaultScopes.includes(scope)} />
              {scope}
            </label>
          ))}
        </fieldset>
        <div class="field">
          <label for="api-key-expiry">Expires on (empty: never)</label>
          <input id="api-key-expiry" name="expires_on" type="date" />
        </div>
        <p role="alert" class="alert" id="api-key-error" hidden></p>
        <button type="submit">Create key</button>
      </form>
      <ShownOnce id="api-key" title="Your new key" warning="Copy it now: it is shown this once and cannot be read again." label="Key value" />
      <h2 id="api-keys-title">Keys</h2>
      <p role="status" id="api-keys-status">
        Loading…
      </p>
      <ListTable tableId="api-keys-table" rowsId="api-key-rows" labelledBy="api-keys-title" columns={['Name', 'Key', 'Permission', 'Scopes', 'Expires', 'Last used', 'Created']} />
      <ConfirmDialog id="api-key-revoke" title="Revoke this key?" confirm="Revoke" />
    </>
  );
}
