/** The login page's way to an organization's SAML sign-in (`/login?org=slug`, when the organization has SAML enabled). */
export function SsoEntry({ slug, next }: { slug: string; next?: string | undefined }) {
  return (
    <p class="after-form">
      <a class="button" href={`/orgs/${encodeURIComponent(slug)}/auth/saml${next === undefined ? '' : `?${new URLSearchParams({ next })}`}`}>
        Sign in with SSO
      </a>
    </p>
  );
}
