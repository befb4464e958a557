import type { ComponentChildren } from 'preact';
import { isAdminRole, type Role } from '../../auth/permissions.js';

/** The settings pages, in the order of their sub-navigation; `administration` ones are shown and served to owners and admins only. */
export const settingsPages = [
  { path: '/settings/api-keys', label: 'API keys', administration: false },
  { path: '/settings/sessions', label: 'Sessions', administration: false },
  { path: '/settings/profile', label: 'Profile and password', administration: false },
  { path: '/settings/authorized-applications', label: 'Authorized applications', administration: false },
  { path: '/settings/users', label: 'Users and roles', administration: true },
  { path: '/settings/security', label: 'Security', administration: true },
  { path: '/settings/oauth-applications', label: 'OAuth applications', administration: true },
  { path: '/settings/audit-log', label: 'Audit log', administration: true },
] as const;

export type SettingsPath = (typeof settingsPages)[number]['path'];

export function settingsPagesFor(role: Role) {
  return settingsPages.filter((page) => !page.administration || isAdminRole(role));
}

/** A settings page: its heading, the settings sub-navigation (only what the viewer may open), then the page. */
export function SettingsFrame({ role, current, title, children }: { role: Role; current: SettingsPath; title: string; children: ComponentChildren }) {
  return (
    <div class="settings">
      <nav aria-label="Settings" class="settings-nav">
        <ul>
          {settingsPagesFor(role).map((page) => (
            <li>
              <a href={page.path} aria-current={page.path === current ? 'page' : undefined}>
                {page.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <section class="settings-page" aria-labelledby="settings-title">
        <h1 id="settings-title">{title}</h1>
        {children}
      </section>
    </div>
  );
}
