-- OAuth 2.0 for applications (issue #17): dbmon as the authorization server. Every secret is
-- stored as its SHA-256 only (client secrets, authorization codes, access and refresh tokens).
CREATE TABLE oauth_applications (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  client_id TEXT NOT NULL UNIQUE,
  -- Null for a public client (a native or browser application that cannot keep a secret).
  client_secret_hash BLOB,
  confidential INTEGER NOT NULL CHECK (confidential IN (0, 1)),
  -- JSON arrays: the exact redirect URIs, the scopes users may grant it.
  redirect_uris TEXT NOT NULL,
  scopes TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX oauth_applications_org ON oauth_applications (org_id, created_at);

-- A user's consent to one application (authz_...): the scopes granted so far. Scopes in these
-- tables are space-separated, as OAuth writes them. Deleting an authorization ends
-- every code and token issued under it.
CREATE TABLE oauth_authorizations (
  id TEXT PRIMARY KEY,
  application_id TEXT NOT NULL REFERENCES oauth_applications (id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  scopes TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (application_id, user_id)
);
CREATE INDEX oauth_authorizations_user ON oauth_authorizations (user_id, created_at);

-- One exchange of a code and every refresh after it: the family a replayed code or a reused
-- refresh token revokes.
CREATE TABLE oauth_grants (
  id TEXT PRIMARY KEY,
  authorization_id TEXT NOT NULL REFERENCES oauth_authorizations (id) ON DELETE CASCADE,
  scopes TEXT NOT NULL,
  created_at TEXT NOT NULL,
  revoked_at TEXT
);

-- Codes stay after their use until they expire, so a replay is recognized (and revokes its grant).
CREATE TABLE oauth_codes (
  code_hash BLOB PRIMARY KEY,
  authorization_id TEXT NOT NULL REFERENCES oauth_authorizations (id) ON DELETE CASCADE,
  redirect_uri TEXT NOT NULL,
  scopes TEXT NOT NULL,
  -- The PKCE S256 challenge; null when the (confidential) client sent none.
  code_challenge TEXT,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  grant_id TEXT REFERENCES oauth_grants (id) ON DELETE CASCADE
);
CREATE INDEX oauth_codes_expiry ON oauth_codes (expires_at);

CREATE TABLE oauth_tokens (
  token_hash BLOB PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
  grant_id TEXT NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
  -- The grant's scopes, or fewer when a refresh asked for fewer (RFC 6749 §6).
  scopes TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT,
  -- A refresh token used once: a second use is a reuse, which revokes the grant.
  used_at TEXT,
  revoked_at TEXT
);
CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id);
