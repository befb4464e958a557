import type { ComponentChildren } from 'preact';
import type { Viewer } from './page-viewer.js';

export interface LayoutProps {
  title: string;
  stylesheet: string;
  icon: string;
  viewer?: Viewer | undefined;
  children: ComponentChildren;
}

/** Every page's frame: signed in, it carries the session's CSRF token and a way to sign out. */
export function Layout({ title, stylesheet, icon, viewer, children }: LayoutProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · dbmon`}</title>
        {viewer && <meta name="csrf-token" content={viewer.csrfToken} />}
        <link rel="stylesheet" href={stylesheet} />
        <link rel="icon" href={icon} type="image/svg+xml" />
      </head>
      <body>
        <header class="masthead">
          <a class="brand" href="/">
            dbmon
          </a>
          {viewer && (
            <div class="account">
              <span>{viewer.user.email}</span>
              <SignOutForm csrfToken={viewer.csrfToken} />
            </div>
          )}
        </header>
        <main>{children}</main>
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
