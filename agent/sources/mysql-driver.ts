import mysql from 'mysql2/promise';

// mysql2 sizes its caches for an application server, and its LRU caches allocate their whole
// capacity as they are made: a row-parser cache of 15,000 entries for the process and a
// prepared-statement cache of 16,000 on every connection, about 0.5 MiB of heap each
// (BENCHMARKS.md, session 9). The agent runs a few dozen statement shapes (10 row parsers for a
// MariaDB database's collectors) as text queries, and never prepares one.
const rowParserCacheEntries = 100;
const preparedStatementCacheEntries = 1;

/** A mysql2 connection with caches sized for the agent's statements. */
export function createMysqlConnection(options: mysql.ConnectionOptions): Promise<mysql.Connection> {
  mysql.setMaxParserCache(rowParserCacheEntries);
  return mysql.createConnection({ ...options, maxPreparedStatements: preparedStatementCacheEntries });
}
