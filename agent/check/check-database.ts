import type { Assignment } from '../assignments/assignment.js';
import { openMysqlSession } from '../sources/mysql-session.js';
import { openPostgresSession } from '../sources/postgres-session.js';
import type { SqlSession } from '../sources/sql-session.js';
import { checkMysql } from './check-mysql.js';
import { checkPostgres } from './check-postgres.js';
import { missing, ok, type Requirement } from './requirement.js';

export interface DatabaseCheck {
  id: string;
  name: string;
  type: Assignment['type'];
  requirements: Requirement[];
}

const sessionOptions = { statementTimeoutMs: 10_000, connectTimeoutMs: 10_000 };

/** Connects to one database as the agent would and reports each requirement of the agent's user on it. */
export async function checkDatabase(database: Assignment): Promise<DatabaseCheck> {
  const { host, port, database: name, username } = database.connection;
  const report = (requirements: Requirement[]): DatabaseCheck => ({ id: database.id, name: database.name, type: database.type, requirements });
  let session: SqlSession;
  let engine: () => Promise<Requirement[]>;
  try {
    if (database.type === 'postgresql') {
      const postgres = await openPostgresSession(database.connection, sessionOptions);
      [session, engine] = [postgres, () => checkPostgres(postgres)];
    } else {
      const mysql = await openMysqlSession(database.connection, sessionOptions);
      [session, engine] = [mysql, () => checkMysql(mysql)];
    }
  } catch (error) {
    const fix =
      database.type === 'postgresql'
        ? `CREATE ROLE "${username}" LOGIN PASSWORD '...';  and a pg_hba.conf line letting it connect to ${name} from the agent's host`
        : `CREATE USER '${username}'@'<agent host>' IDENTIFIED BY '...'; GRANT SELECT ON \`${name}\`.* TO '${username}'@'<agent host>';`;
    return report([missing('connect', `cannot connect as ${username} to ${host}:${port}/${name}: ${(error as Error).message}`, fix)]);
  }
  try {
    return report([ok('connect', `connected as ${username} to ${host}:${port}/${name}`), ...(await engine())]);
  } finally {
    await session.close();
  }
}

/** True when nothing is missing; warnings are optional features. */
export function allPresent(checks: readonly DatabaseCheck[]): boolean {
  return checks.every((check) => check.requirements.every((requirement) => requirement.status !== 'missing'));
}

/** The checks as lines for a terminal: one per requirement, its fix indented under it. */
export function formatChecks(checks: readonly DatabaseCheck[]): string[] {
  return checks.flatMap((check) => [
    `${check.id} (${check.name}, ${check.type})`,
    ...check.requirements.flatMap((requirement) => [
      `  ${requirement.status.padEnd(7)}  ${requirement.name}: ${requirement.detail}`,
      ...(requirement.fix === undefined ? [] : [`           fix: ${requirement.fix}`]),
    ]),
  ]);
}
