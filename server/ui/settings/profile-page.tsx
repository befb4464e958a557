import type { User } from '../../auth/identity/user.js';

/** `/settings/profile`: the viewer's name, and a new password behind the current one (PATCH /v1/user, from web/settings-profile.ts). */
export function ProfilePage({ user }: { user: User }) {
  return (
    <>
      <dl>
        <dt>Email</dt>
        <dd>{user.email}</dd>
        <dt>Role</dt>
        <dd>{user.role}</dd>
      </dl>
      <form id="profile-form" class="card">
        <h2>Name</h2>
        <div class="field">
          <label for="profile-name">Name</label>
          <input id="profile-name" name="name" type="text" maxLength={200} value={user.name} required autoComplete="name" />
        </div>
        <p role="status" id="profile-status"></p>
        <button type="submit">Save name</button>
      </form>
      <form id="password-form" class="card">
        <h2>Password</h2>
        <div class="field">
          <label for="current-password">Current password</label>
          <input id="current-password" name="current_password" type="password" required autoComplete="current-password" />
        </div>
        <div class="field">
          <label for="new-password">New password</label>
          <input id="new-password" name="password" type="password" minLength={12} maxLength={256} required autoComplete="new-password" aria-describedby="new-password-hint" />
          <p class="hint" id="new-password-hint">
            12 to 256 characters, not a commonly used password. Every other session of yours is signed out.
          </p>
        </div>
        <p role="status" id="password-status"></p>
        <button type="submit">Change password</button>
      </form>
    </>
  );
}
