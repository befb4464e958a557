import { roles, type Role } from '../../auth/permissions.js';
import { ConfirmDialog, ShownOnce } from './shown-once.js';
import { ScrollRegion } from '../scroll-region.js';

/**
 * `/settings/users` (owners and admins): the organization's users, an invitation form and the place its
 * one-time link is shown. web/settings-users.ts fills and drives it through /v1/users; the API keeps its
 * rules (only owners make owners, the last active owner stays one) and the page says its refusals.
 */
export function UsersPage({ viewerRole }: { viewerRole: Role }) {
  // Only owners may give the owner role; an admin is not offered it.
  const offered = roles.filter((role) => viewerRole === 'owner' || role !== 'owner');
  return (
    <div data-roles={offered.join(' ')}>
      <form id="invite-form" class="card">
        <h2>Invite someone</h2>
        <div class="field">
          <label for="invite-email">Email</label>
          <input id="invite-email" name="email" type="email" maxLength={254} required />
        </div>
        <div class="field">
          <label for="invite-role">Role</label>
          <select id="invite-role" name="role">
            {offered.map((role) => (
              <option value={role} selected={role === 'member'}>
                {role}
              </option>
            ))}
          </select>
        </div>
        <p role="alert" class="alert" id="invite-error" hidden></p>
        <button type="submit">Invite</button>
      </form>
      <ShownOnce id="invitation" title="Invitation link" warning="Give this link to the invitee: it is shown this once, works once and expires in 7 days." label="Link" />
      <h2 id="users-title">Users</h2>
      <p role="status" id="users-status">
        Loading…
      </p>
      <ScrollRegion labelledBy="users-title">
        <table id="users-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Status</th>
              <th scope="col">Two-factor</th>
              <th scope="col">Since</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody id="user-rows"></tbody>
        </table>
      </ScrollRegion>
      <ConfirmDialog id="user-remove" title="Remove this user?" confirm="Remove" />
    </div>
  );
}
