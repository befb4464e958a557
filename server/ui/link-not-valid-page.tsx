import type { LinkPurpose } from '../auth/one-time-links/link-purpose.js';

/** A one-time link that does not work: one page whatever the reason (used, replaced, cancelled, expired, made up). */
export function LinkNotValidPage({ purpose }: { purpose: LinkPurpose }) {
  return (
    <section class="card" aria-labelledby="link-title">
      <h1 id="link-title">This link does not work</h1>
      <p>It was already used, a newer link replaced it, it was cancelled, or it has expired.</p>
      {purpose === 'invitation' ? (
        <p>Ask an administrator of your organization for a new invitation.</p>
      ) : (
        <p>
          <a href="/password-reset">Ask for a new link</a>
        </p>
      )}
      <p>
        <a href="/login">Go to sign in</a>
      </p>
    </section>
  );
}
