-- The key a key was made with (POST /v1/api-keys); null for keys the operator made. Revoking a key
-- revokes the keys made through it, and authenticating a key checks its ancestors for revocation
-- and expiry. Keys are never deleted but with their user, service account or organization.
ALTER TABLE api_keys ADD COLUMN parent_key_id TEXT REFERENCES api_keys (id) ON DELETE CASCADE;
CREATE INDEX api_keys_parent ON api_keys (parent_key_id) WHERE parent_key_id IS NOT NULL;
