CREATE TABLE organizations (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  slug TEXT NOT NULL UNIQUE,
  plan TEXT NOT NULL CHECK (plan IN ('free', 'pro', 'enterprise')),
  custom_hourly_limit INTEGER CHECK (custom_hourly_limit IS NULL OR custom_hourly_limit > 0),
  created_at TEXT NOT NULL
);

CREATE TABLE users (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  email TEXT NOT NULL UNIQUE COLLATE NOCASE,
  name TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'viewer')),
  password_hash TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX users_org ON users (org_id);

CREATE TABLE service_accounts (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  permission TEXT NOT NULL CHECK (permission IN ('read', 'write')),
  created_at TEXT NOT NULL,
  UNIQUE (org_id, name)
);

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('personal', 'service_account')),
  user_id TEXT REFERENCES users (id) ON DELETE CASCADE,
  service_account_id TEXT REFERENCES service_accounts (id) ON DELETE CASCADE,
  permission TEXT NOT NULL CHECK (permission IN ('read', 'write')),
  scopes TEXT NOT NULL,
  token_hash BLOB NOT NULL UNIQUE,
  prefix TEXT NOT NULL,
  last4 TEXT NOT NULL,
  expires_at TEXT,
  last_used_at TEXT,
  created_at TEXT NOT NULL,
  revoked_at TEXT,
  CHECK ((kind = 'personal' AND user_id IS NOT NULL AND service_account_id IS NULL)
      OR (kind = 'service_account' AND service_account_id IS NOT NULL AND user_id IS NULL))
);
CREATE INDEX api_keys_org ON api_keys (org_id, created_at);

CREATE TABLE databases (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  type TEXT NOT NULL CHECK (type IN ('postgresql', 'mysql', 'mariadb')),
  host TEXT NOT NULL,
  port INTEGER NOT NULL,
  database_name TEXT NOT NULL,
  username TEXT NOT NULL,
  password_encrypted BLOB,
  ssl INTEGER NOT NULL,
  monitoring_enabled INTEGER NOT NULL,
  interval_seconds INTEGER NOT NULL,
  version TEXT,
  status TEXT NOT NULL CHECK (status IN ('pending', 'healthy', 'warning', 'critical', 'unreachable', 'paused')),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (org_id, name)
);
CREATE INDEX databases_org_created ON databases (org_id, created_at, id);
