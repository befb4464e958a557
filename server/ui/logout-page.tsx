import { SignOutForm } from './layout.js';

export function LogoutPage({ csrfToken }: { csrfToken: string }) {
  return (
    <section class="card" aria-labelledby="logout-title">
      <h1 id="logout-title">Sign out?</h1>
      <p>This ends your session in this browser.</p>
      <SignOutForm csrfToken={csrfToken} primary />
    </section>
  );
}
