-- People and the organization's controls (issue #15): sign-in state on users, the organization's
-- session and network settings, and browser sessions. A session row holds only the SHA-256 of the
-- secret the cookie carries; `id` (sess_...) is the public name the API lists and revokes it by.
ALTER TABLE users ADD COLUMN status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('invited', 'active', 'disabled'));
ALTER TABLE users ADD COLUMN last_sign_in_at TEXT;

ALTER TABLE organizations ADD COLUMN session_idle_timeout_minutes INTEGER NOT NULL DEFAULT 30
  CHECK (session_idle_timeout_minutes BETWEEN 5 AND 1440);
ALTER TABLE organizations ADD COLUMN session_max_duration_hours INTEGER NOT NULL DEFAULT 168
  CHECK (session_max_duration_hours BETWEEN 1 AND 720);
ALTER TABLE organizations ADD COLUMN max_concurrent_sessions INTEGER NOT NULL DEFAULT 10
  CHECK (max_concurrent_sessions BETWEEN 1 AND 100);
ALTER TABLE organizations ADD COLUMN require_two_factor INTEGER NOT NULL DEFAULT 0;
ALTER TABLE organizations ADD COLUMN two_factor_grace_period_days INTEGER NOT NULL DEFAULT 7
  CHECK (two_factor_grace_period_days BETWEEN 0 AND 90);
-- A JSON array of addresses and CIDR ranges; empty: no restriction.
ALTER TABLE organizations ADD COLUMN ip_allowlist TEXT NOT NULL DEFAULT '[]';

CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token_hash BLOB NOT NULL UNIQUE,
  csrf_token TEXT NOT NULL,
  -- The user's role when the id was issued: a request after a role change gets a new id.
  role TEXT NOT NULL,
  ip TEXT NOT NULL,
  user_agent TEXT NOT NULL,
  created_at TEXT NOT NULL,
  last_active_at TEXT NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id, created_at);
