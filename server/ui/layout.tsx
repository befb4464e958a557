import type { ComponentChildren } from 'preact';
import type { Viewer } from './page-viewer.js';

/** The screens the navigation leads to: only those that exist. */
export const navigation = [
  { section: 'overview', href: '/', label: 'Overview' },
  { section: 'alerts', href: '/alerts', label: 'Alerts' },
  { section: 'webhooks', href: '/webhooks', label: 'Webhooks' },
  { section: 'settings', href: '/settings/api-keys', label: 'Settings' },
  { section: 'two-factor', href: '/account/two-factor', label: 'Two-factor' },
  { section: 'identities', href: '/account/identities', label: 'Linked accounts' },
] as const;

export type NavSection = (typeof navigation)[number]['section'];

export interface LayoutProps {
  title: string;
  stylesheets: string[];
  icon: string;
  /** Scripts of our own origin, each loaded with the response's CSP nonce after the page is parsed. */
  scripts?: string[];
  nonce?: string | undefined;
  viewer?: Viewer | undefined;
  /** The navigation entry this page belongs to. */
  section?: NavSection | undefined;
  /** The dashboard's tables and charts take the window's width; forms keep a readable measure. */
  wide?: boolean | undefined;
  children: ComponentChildren;
}

/** Every page's frame: signed in, it carries the navigation, the organization's name, the session's CSRF token and a way to sign out. */
export function Layout({ title, stylesheets, icon, scripts = [], nonce, viewer, section, wide, children }: LayoutProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · dbmon`}</title>
        {viewer && <meta name="csrf-token" content={viewer.csrfToken} />}
        {stylesheets.map((href) => (
          <link rel="stylesheet" href={href} />
        ))}
        <link rel="icon" href={icon} type="image/svg+xml" />
        {scripts.map((src) => (
          <script src={src} nonce={nonce} defer />
        ))}
      </head>
      <body>
        <header class="masthead">
          <a class="brand" href="/">
            dbmon
          </a>
          {viewer && (
            <>
              <span class="organization">{viewer.organization.name}</span>
              <nav aria-label="Main">
                <ul>
                  {navigation.map((entry) => (
                    <li>
                      <a href={entry.href} aria-current={entry.section === section ? 'page' : undefined}>
                        {entry.label}
                      </a>
                    </li>
                  ))}
                </ul>
              </nav>
              <div class="account">
                <span>{viewer.user.email}</span>
                <SignOutForm csrfToken={viewer.csrfToken} />
              </div>
            </>
          )}
        </header>
        <main class={wide ? 'wide' : undefined}>{children}</main>
      </body>
    </html>
  );
}

export function SignOutForm({ csrfToken, primary = false }: { csrfToken: string; primary?: boolean }) {
  return (
    <form method="post" action="/logout">
      <input type="hidden" name="csrf_token" value={csrfToken} />
      <button type="submit" class={primary ? undefined : 'secondary'}>
        Sign out
      </button>
    </form>
  );
}
