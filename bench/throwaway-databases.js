// Throwaway databases for the benchmarks (as test/helpers/throwaway-*-database.ts, in plain JS):
// the local PostgreSQL (127.0.0.1:5432, postgres, trust) and MariaDB (127.0.0.1:3306, root, no
// password), a little traffic, and the drop at the end.
import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
// As the agent loads it: a bare `import 'pg'` loads undici, which crashes under the agent's --jitless.
import { pg } from '../dist/agent/sources/pg-driver.js';

export const postgresServer = { host: '127.0.0.1', port: 5432, user: 'postgres' };
export const mysqlServer = { host: '127.0.0.1', port: 3306, user: 'root', password: '' };

export function throwawayName() {
  return `dbmon_bench_${randomBytes(6).toString('hex')}`;
}

export async function postgresAdmin(sql) {
  const client = new pg.Client({ ...postgresServer, database: 'postgres' });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

export async function mysqlAdmin(sql) {
  const connection = await mysql.createConnection(mysqlServer);
  try {
    return await connection.query(sql);
  } finally {
    await connection.end();
  }
}

/**
 * A database of its own with a table and a plain connection for traffic; `created` is where the
 * caller finds it to drop it. type is 'postgresql' or 'mariadb'.
 */
export async function createThrowaway(created, type) {
  const name = throwawayName();
  if (type === 'postgresql') {
    await postgresAdmin(`CREATE DATABASE ${name}`);
    const database = { type, name, client: undefined };
    created.push(database);
    database.client = new pg.Client({ ...postgresServer, database: name });
    await database.client.connect();
    // Preloaded on this server; the extension must exist in each database to be read there.
    await database.client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await database.client.query('CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL)');
    database.settings = { host: postgresServer.host, port: postgresServer.port, database: name, username: postgresServer.user, password: null, ssl: false };
    database.placeholder = '$1';
    return database;
  }
  await mysqlAdmin(`CREATE DATABASE \`${name}\``);
  const database = { type, name, client: undefined };
  created.push(database);
  database.client = await mysql.createConnection({ ...mysqlServer, database: name });
  await database.client.query('CREATE TABLE notes (id int AUTO_INCREMENT PRIMARY KEY, body varchar(100) NOT NULL) ENGINE=InnoDB');
  database.settings = { host: mysqlServer.host, port: mysqlServer.port, database: name, username: mysqlServer.user, password: '', ssl: false };
  database.placeholder = '?';
  return database;
}

/** A little traffic: transactions of one insert each, and two reads per transaction. */
export async function traffic(database, transactions) {
  const { client, placeholder } = database;
  for (let i = 0; i < transactions; i++) {
    await client.query('BEGIN');
    await client.query(`INSERT INTO notes (body) VALUES (${placeholder})`, [`note ${i} ${randomBytes(8).toString('hex')}`]);
    await client.query('COMMIT');
    await client.query(`SELECT count(*) AS n FROM notes WHERE body LIKE ${placeholder}`, [`note ${i % 10}%`]);
    await client.query('SELECT id, body FROM notes ORDER BY id DESC LIMIT 5');
  }
}

export async function dropAll(created) {
  for (const database of created.reverse()) {
    try {
      await database.client?.end();
    } catch {
      // Already closed.
    }
    try {
      if (database.type === 'postgresql') await postgresAdmin(`DROP DATABASE IF EXISTS ${database.name} WITH (FORCE)`);
      else await mysqlAdmin(`DROP DATABASE IF EXISTS \`${database.name}\``);
    } catch (error) {
      process.stderr.write(`could not drop ${database.type} database ${database.name}: ${error instanceof Error ? error.message : String(error)}\n`);
    }
  }
}
