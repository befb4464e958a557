-- Change counters that triggers move on every write to the tables behind a cache, so an in-process
-- cache (server/storage/generation-cache.ts) sees writes from any connection (the CLI included)
-- by reading one row. 'databases': the databases table; 'credentials': what authenticating an API
-- key reads (api_keys except last_used_at, users, service accounts, organizations).
CREATE TABLE table_generations (
  name TEXT PRIMARY KEY,
  generation INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO table_generations (name, generation) VALUES ('databases', 0), ('credentials', 0);

CREATE TRIGGER databases_insert_moves_databases AFTER INSERT ON databases
BEGIN UPDATE table_generations SET generation = generation + 1 WHERE name = 'databases'; END;
CREATE TRIGGER databases_update_moves_databases AFTER UPDATE ON databases
BEGIN UPDATE table_generations SET generation = generation + 1 WHERE name = 'databases'; END;
CREATE TRIGGER databases_delete_moves_databases AFTER DELETE ON databases
BEGIN UPDATE table_generations SET generation = generation + 1 WHERE name = 'databases'; END;
CREATE TRIGGER organizations_insert_moves_credentials AFTER INSERT ON organizations
BEGIN UPDATE table_generations SET generation = generation + 1 WHERE name = 'credentials'; END;
CREATE TRIGGER organizations_update_moves_credentials AFTER UPDATE ON organizations
BEGIN UPDATE table_generations SET generation = generation + 1 WHERE name = 'credentials'; END;
CREATE TRIGGER organizations_delete_moves_credentials AFTER DELETE ON organizations
BEGIN UPDATE table_generations SET generation = generation + 1 WHERE name = 'credentials'; END;
CREATE TRIGGER users_insert_moves_credentials AFTER INSERT ON users
BEGIN UPDATE table_generations SET generation = generation + 1 WHERE name = 'credentials'; END;
CREATE TRIGGER users_update_moves_credentials AFTER UPDATE ON users
BEGIN UPDATE table_generations SET generation = generation + 1 WHERE name = 'credentials'; END;
CREATE TRIGGER users_delete_moves_credentials AFTER DELETE ON users
BEGIN UPDATE table_generations SET generation = generation + 1 WHERE name = 'credentials'; END;
CREATE TRIGGER service_accounts_insert_moves_credentials AFTER INSERT ON service_accounts
BEGIN UPDATE table_generations SET generation = generation + 1 WHERE name = 'credentials'; END;
CREATE TRIGGER service_accounts_update_moves_credentials AFTER UPDATE ON service_accounts
BEGIN UPDATE table_generations SET generation = generation + 1 WHERE name = 'credentials'; END;
CREATE TRIGGER service_accounts_delete_moves_credentials AFTER DELETE ON service_accounts
BEGIN UPDATE table_generations SET generation = generation + 1 WHERE name = 'credentials'; END;
CREATE TRIGGER api_keys_insert_moves_credentials AFTER INSERT ON api_keys
BEGIN UPDATE table_generations SET generation = generation + 1 WHERE name = 'credentials'; END;
-- Every column but last_used_at, which authenticating a key itself writes.
CREATE TRIGGER api_keys_update_moves_credentials AFTER UPDATE OF id, org_id, name, kind, user_id, service_account_id, permission, scopes, token_hash, prefix, last4, expires_at, created_at, revoked_at ON api_keys
BEGIN UPDATE table_generations SET generation = generation + 1 WHERE name = 'credentials'; END;
CREATE TRIGGER api_keys_delete_moves_credentials AFTER DELETE ON api_keys
BEGIN UPDATE table_generations SET generation = generation + 1 WHERE name = 'credentials'; END;
