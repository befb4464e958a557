import { allPresent, checkDatabase, formatChecks } from '../../agent/check/check-database.js';
import { NotFoundError } from '../errors.js';
import type { DatabasesService } from '../databases/databases-service.js';

/**
 * `dbmon databases check DB_ID`: the agent's requirements on a database the embedded agent collects,
 * checked from this host with the stored connection (decrypted with the state directory's key).
 * Exit 0 when nothing is missing, 1 otherwise.
 */
export async function checkDatabaseCommand(databases: DatabasesService, id: string, print: (line: string) => void): Promise<number> {
  const row = databases.findAnyOrg(id);
  if (row === undefined) throw new NotFoundError(`No database ${id}`, 'id');
  if (row.agent_id !== null) {
    throw new NotFoundError(`${id} is collected by agent ${row.agent_id}: run "dbmon-agent check" on that agent's host`, 'id');
  }
  const check = await checkDatabase({ id: row.id, name: row.name, type: row.type, interval_seconds: row.interval_seconds, connection: databases.connectionOf(row) });
  formatChecks([check]).forEach((line) => print(line));
  return allPresent([check]) ? 0 : 1;
}
