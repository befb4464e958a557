-- Sign-in through external providers (issue #18): the providers each organization set up, and
-- the identities users linked. The client secret is sealed (AES-256-GCM, bound to its
-- organization and provider) and never leaves again.
CREATE TABLE identity_providers (
  org_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  provider TEXT NOT NULL CHECK (provider IN ('github', 'google', 'microsoft', 'gitlab')),
  client_id TEXT NOT NULL,
  client_secret BLOB NOT NULL,
  -- GitLab: the instance (self-hosted or gitlab.com); null for the others.
  base_url TEXT,
  -- Microsoft: the Entra tenant (an id or domain, or organizations / common / consumers).
  tenant TEXT,
  enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (org_id, provider)
);

-- One account at a provider (idn_...). The issuer is part of the key: two GitLab instances, or
-- two Entra tenants, number their users independently, so a subject alone names nobody.
CREATE TABLE user_identities (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  provider TEXT NOT NULL,
  issuer TEXT NOT NULL,
  subject TEXT NOT NULL,
  -- The verified email it was linked by, shown to the user.
  email TEXT NOT NULL,
  created_at TEXT NOT NULL,
  last_used_at TEXT,
  UNIQUE (provider, issuer, subject)
);
CREATE INDEX user_identities_user ON user_identities (user_id, created_at);
