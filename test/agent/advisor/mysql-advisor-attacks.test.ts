import type mysql from 'mysql2/promise';
import t from 'tap';
import { analyzeMysqlStatement } from '../../../agent/advisor/mysql-advisor.js';
import { defaultAdvisorOptions } from '../../../agent/advisor/advisor-options.js';
import { lexerNeutralSqlMode, openMysqlSession } from '../../../agent/sources/mysql-session.js';
import { createThrowawayMysqlDatabase } from '../../helpers/throwaway-mysql-database.js';

// The guard must split text where the server does, whatever sql_mode the session runs under.
const database = await createThrowawayMysqlDatabase();
t.teardown(() => database.drop());
const client = await database.connect();
await client.query('CREATE TABLE victims (n int) ENGINE=InnoDB');
await client.query('INSERT INTO victims VALUES (1)');

const connection = { ...database.settings, password: '' };
const openSession = () => openMysqlSession(connection, { statementTimeoutMs: 5_000, connectTimeoutMs: 5_000 });
const victimsLeft = async () => Number((await database.admin(`SELECT COUNT(*) AS n FROM \`${database.name}\`.victims`))[0]?.n);
const analyzeUnder = async (sqlMode: string, query: string) => {
  const session = await openSession();
  try {
    // As if the server's default sql_mode had it: the advisor must lex with the mode in force.
    await session.query(`SET SESSION sql_mode = CONCAT(@@SESSION.sql_mode, ',${sqlMode}')`);
    return (await analyzeMysqlStatement(session, { query_id: 'q', query, calls: 1, total_time_ms: 1, mean_time_ms: 1 }, defaultAdvisorOptions)).analysis;
  } finally {
    await session.close();
  }
};

t.test('multi-statements are impossible on the agent session', async (t) => {
  const session = await openSession();
  t.teardown(() => session.close());
  await t.rejects(session.query('SELECT 1; DROP TABLE victims'), /syntax/);
  t.equal(await victimsLeft(), 1);
});

t.test('under ANSI_QUOTES "..." is a name: a semicolon after it is refused', async (t) => {
  const analysis = await analyzeUnder('ANSI_QUOTES', 'SELECT "a\\" ; DROP TABLE `victims` ; -- " FROM `victims`');
  t.equal(analysis.outcome, 'refused', analysis.detail);
  t.match(analysis.detail, /more than one statement/);
  t.equal(await victimsLeft(), 1);
});

t.test('under NO_BACKSLASH_ESCAPES a backslash ends nothing: a semicolon after the string is refused', async (t) => {
  const analysis = await analyzeUnder('NO_BACKSLASH_ESCAPES', "SELECT 'a\\' ; DROP TABLE `victims` ; -- ' FROM `victims`");
  t.equal(analysis.outcome, 'refused', analysis.detail);
  t.match(analysis.detail, /more than one statement/);
  t.equal(await victimsLeft(), 1);
});

t.test("the session drops the sql_mode flags that move quotes' ends, whatever the server's default", async (t) => {
  t.equal(
    lexerNeutralSqlMode('REAL_AS_FLOAT,PIPES_AS_CONCAT,ANSI_QUOTES,IGNORE_SPACE,ONLY_FULL_GROUP_BY,ANSI,NO_BACKSLASH_ESCAPES'),
    'REAL_AS_FLOAT,PIPES_AS_CONCAT,IGNORE_SPACE,ONLY_FULL_GROUP_BY',
    'ANSI would bring ANSI_QUOTES back',
  );
  t.equal(lexerNeutralSqlMode('PIPES_AS_CONCAT,ANSI_QUOTES,IGNORE_SPACE,ORACLE,SIMULTANEOUS_ASSIGNMENT'), 'PIPES_AS_CONCAT,IGNORE_SPACE,SIMULTANEOUS_ASSIGNMENT');
  t.equal(lexerNeutralSqlMode(''), '');
  const session = await openSession();
  t.teardown(() => session.close());
  const [row] = await session.query('SELECT @@SESSION.sql_mode AS mode');
  const [[plain]] = await client.query<mysql.RowDataPacket[]>('SELECT @@SESSION.sql_mode AS mode');
  t.equal(row?.mode, lexerNeutralSqlMode(String(plain?.mode)), "the agent's session runs a plain session's mode without those flags");
});
