import { join } from 'node:path';
import type { Logger } from 'pino';
import { writeFileAtomically } from '../../common/write-file-atomically.js';
import { randomBase62 } from '../crypto/base62.js';
import type { ApiKeysService } from '../auth/api-keys/api-keys-service.js';
import type { IdentityService } from '../auth/identity/identity-service.js';
import { hashPassword } from '../auth/passwords/password-hash.js';
import type { Transaction } from '../storage/open-database.js';

export const initialAdminFileName = 'initial-admin.json';

export interface InitialAdmin {
  org_id: string;
  email: string;
  password: string;
  api_key: string;
}

/**
 * On an empty state directory: the `default` organization, its owner and a write key, written
 * owner-only to `<state dir>/initial-admin.json`, whole and durable before the organization commits
 * (they may be the only credentials). The log names the file, never its content.
 */
export async function ensureInitialAdmin(
  services: { identity: IdentityService; apiKeys: ApiKeysService; transaction: Transaction },
  stateDir: string,
  now: Date,
  logger: Logger,
): Promise<InitialAdmin | undefined> {
  if (services.identity.hasOrganizations()) return undefined;
  const password = randomBase62(24);
  const passwordHash = await hashPassword(password);
  const file = join(stateDir, initialAdminFileName);
  // One transaction with the file write: a failed write leaves no half-made organization behind.
  const admin = services.transaction(() => {
    const organization = services.identity.createOrganization({ name: 'default', plan: 'enterprise' }, now);
    services.identity.createUser(
      { orgId: organization.id, email: 'admin@localhost', name: 'Administrator', role: 'owner', passwordHash },
      now,
    );
    const account = services.identity.serviceAccount(organization.id, 'initial-admin', 'write', now);
    const key = services.apiKeys.create(
      organization.id,
      { kind: 'service_account', serviceAccountId: account.id },
      { name: 'initial admin key', permission: 'write' },
      now,
    );
    const credentials: InitialAdmin = { org_id: organization.id, email: 'admin@localhost', password, api_key: key.value };
    writeFileAtomically(file, `${JSON.stringify(credentials, null, 2)}\n`);
    return credentials;
  });
  logger.warn({ file }, 'first start: created organization "default"; initial credentials are in this file (owner-only); move them somewhere safe');
  return admin;
}
