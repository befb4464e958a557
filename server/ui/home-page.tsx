import type { Viewer } from './page-viewer.js';

/** The signed-in start page: who you are and where (the dashboard takes its place later). */
export function HomePage({ viewer }: { viewer: Viewer }) {
  const { user, organization } = viewer;
  return (
    <section class="card" aria-labelledby="home-title">
      <h1 id="home-title">{`Welcome, ${user.name || user.email}`}</h1>
      <dl>
        <dt>Email</dt>
        <dd>{user.email}</dd>
        <dt>Role</dt>
        <dd>{user.role}</dd>
        <dt>Organization</dt>
        <dd>{organization.name}</dd>
      </dl>
      <p class="muted">The dashboard will be here.</p>
    </section>
  );
}
