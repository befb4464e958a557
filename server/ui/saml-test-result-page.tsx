import type { MappedUser } from '../auth/saml/saml-attributes.js';

/** What a test round trip of the SAML settings found: the user the assertion maps to. Nobody was created or signed in. */
export function SamlTestResultPage({ user, existing }: { user: MappedUser; existing: boolean }) {
  return (
    <section class="card" aria-labelledby="saml-test-title">
      <h1 id="saml-test-title">SAML test passed</h1>
      <p role="status" class="notice">
        The identity provider's response was accepted. Nobody was signed in or created.
      </p>
      <dl>
        <dt>Email</dt>
        <dd id="saml-test-email">{user.email}</dd>
        <dt>Name</dt>
        <dd id="saml-test-name">{user.name}</dd>
        <dt>Role</dt>
        <dd id="saml-test-role">{user.role}</dd>
        <dt>Account</dt>
        <dd>{existing ? 'An account with this email exists in this organization.' : 'No account has this email yet.'}</dd>
      </dl>
      <p>
        <a href="/">Go to the start page</a>
      </p>
    </section>
  );
}
