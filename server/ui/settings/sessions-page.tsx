import { ScrollRegion } from '../scroll-region.js';

/** `/settings/sessions`: the viewer's browser sessions, this one marked; web/settings-sessions.ts fills it from /v1/sessions and ends them. */
export function SessionsPage() {
  return (
    <>
      <p>Every browser signed in as you. End any you do not recognize; changing your password ends all but this one.</p>
      <p role="status" id="sessions-status">
        Loading…
      </p>
      <ScrollRegion label="Signed-in browsers">
        <table id="sessions-table">
          <thead>
            <tr>
              <th scope="col">Device</th>
              <th scope="col">Browser</th>
              <th scope="col">Location</th>
              <th scope="col">Signed in</th>
              <th scope="col">Last seen</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody id="session-rows"></tbody>
        </table>
      </ScrollRegion>
      <p>
        <button type="button" id="sign-out-others" class="secondary">
          Sign out everywhere else
        </button>
      </p>
    </>
  );
}
