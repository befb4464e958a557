-- Why the last collection of a database failed, with no secret in it (NULL once one succeeds again):
-- a stable code, the redacted message, and when collections began failing with this error.
ALTER TABLE databases ADD COLUMN last_error_code TEXT;
ALTER TABLE databases ADD COLUMN last_error_message TEXT;
ALTER TABLE databases ADD COLUMN last_error_at TEXT;

-- A job ended by the server rather than by its result: why ('connection_changed'), so that a
-- result of it that still comes back is refused with that code.
ALTER TABLE optimization_jobs ADD COLUMN cancel_reason TEXT;
