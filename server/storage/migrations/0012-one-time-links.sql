-- Invitation and password-reset links (issue #15): only the SHA-256 of a link's token is stored. A
-- link is bound to one user and one purpose, used once (its row is deleted), and replaced by the
-- next link of the same purpose for the same user.
CREATE TABLE one_time_links (
  token_hash BLOB PRIMARY KEY,
  purpose TEXT NOT NULL CHECK (purpose IN ('invitation', 'password_reset')),
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX one_time_links_user ON one_time_links (user_id, purpose);
