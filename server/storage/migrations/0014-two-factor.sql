-- Second factors (issue #16). A TOTP secret is stored sealed (AES-256-GCM, bound to its user); a
-- method counts once confirmed (a code proved the user holds it). `last_time_step` is the TOTP time
-- step last accepted: no code of that step or an earlier one is accepted again.
CREATE TABLE two_factor_methods (
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  method TEXT NOT NULL CHECK (method IN ('totp', 'sms')),
  secret BLOB,
  phone TEXT,
  confirmed_at TEXT,
  last_time_step INTEGER,
  created_at TEXT NOT NULL,
  PRIMARY KEY (user_id, method)
);

-- Only the SHA-256 of a recovery code (80 random bits) is stored; a used code's row is deleted.
CREATE TABLE recovery_codes (
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  code_hash BLOB NOT NULL,
  PRIMARY KEY (user_id, code_hash)
);

-- When the organization last turned require_two_factor on: a member's grace period starts then, or
-- when they joined if later. Null while it is off.
ALTER TABLE organizations ADD COLUMN two_factor_required_since TEXT;

-- Whether the user has a confirmed second factor: written with the methods, in their transaction, so
-- user lists and the requirement check read it without a join.
ALTER TABLE users ADD COLUMN two_factor_enabled INTEGER NOT NULL DEFAULT 0;

-- An organization that already requires a second factor starts its members' grace period now.
UPDATE organizations SET two_factor_required_since = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE require_two_factor = 1;
