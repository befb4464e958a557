-- The audit log (issue #15): who did what to the organization's accounts and settings, through which
-- credential, from which address. A row is written in the transaction of the change it records; rows
-- are never updated, and only the 400-day expiry deletes them. `seq` keeps the order of writes;
-- `id` (aud_...) is the public name. `details` is a small JSON object that never holds a secret.
CREATE TABLE audit_log (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  org_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  action TEXT NOT NULL,
  -- NULL: nobody proved who they were (a failed sign-in); 'operator': the command line on the server host.
  actor_type TEXT CHECK (actor_type IN ('user', 'service_account', 'operator')),
  actor_id TEXT,
  credential_type TEXT,
  credential_id TEXT,
  target_type TEXT,
  target_id TEXT,
  ip TEXT,
  user_agent TEXT,
  details TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_log_org ON audit_log (org_id, created_at);
CREATE INDEX audit_log_expiry ON audit_log (created_at);
CREATE TRIGGER audit_log_append_only BEFORE UPDATE ON audit_log
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
