import { roles, type Role } from '../permissions.js';
import type { SamlConfiguration } from './saml-configuration.js';

/** The user an assertion describes, in our terms. */
export interface MappedUser {
  email: string;
  name: string;
  role: Role;
}

/**
 * Email, name and role from the assertion's attributes as the organization mapped them. The email falls back to
 * the NameID; a role value outside the allowlist gives `default_role`, and of several values the strongest wins.
 */
export function mapAttributes(configuration: SamlConfiguration, nameId: string, attributes: Record<string, unknown>): MappedUser | undefined {
  const { attributeMapping, roleValues, defaultRole } = configuration;
  const email = (valuesOf(attributes[attributeMapping.email])[0] ?? nameId).trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) return undefined;
  const name = valuesOf(attributes[attributeMapping.name])[0]?.trim() || email.split('@')[0]!;
  const given = valuesOf(attributes[attributeMapping.role]);
  const role = roles.find((candidate) => (roleValues[candidate] ?? []).some((value) => given.includes(value))) ?? defaultRole;
  return { email, name: name.slice(0, 200), role };
}

function valuesOf(value: unknown): string[] {
  const list = Array.isArray(value) ? (value as unknown[]) : [value];
  return list.filter((item): item is string => typeof item === 'string');
}
