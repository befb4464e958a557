import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { tempDir } from '../../helpers/temp-dir.js';
import { createThrowawayMysqlDatabase } from '../../helpers/throwaway-mysql-database.js';
import { createThrowawayPostgresDatabase } from '../../helpers/throwaway-postgres-database.js';

const agentPath = new URL('../../../dist/agent/main.js', import.meta.url).pathname;

function runAgent(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [agentPath, ...args], { env: { PATH: process.env.PATH ?? '' } }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr }),
    );
  });
}

t.test('dbmon-agent check: every local database, exit 1 while something is missing, 0 once all is in place', async (t) => {
  const postgres = await createThrowawayPostgresDatabase();
  const mariadb = await createThrowawayMysqlDatabase();
  const role = `dbmon_check_${randomBytes(4).toString('hex')}`;
  await postgres.admin(`CREATE ROLE ${role} LOGIN`);
  t.teardown(async () => {
    await postgres.drop();
    await postgres.admin(`DROP ROLE IF EXISTS ${role}`);
    await mariadb.drop();
  });
  const dir = tempDir(t, 'dbmon-agent-check-');
  const config = (pgUser: string) => {
    const file = join(dir, `${pgUser}.yaml`);
    writeFileSync(
      file,
      [
        'server:',
        '  url: http://127.0.0.1:1',
        '  agent_key: dbm_agk_unused',
        'databases:',
        '  - id: db_pg',
        '    name: orders',
        '    type: postgresql',
        `    connection: { host: 127.0.0.1, port: 5432, database: ${postgres.name}, username: ${pgUser} }`,
        '  - id: db_maria',
        '    type: mariadb',
        `    connection: { host: 127.0.0.1, port: 3306, database: ${mariadb.name}, username: root, password: "" }`,
        '',
      ].join('\n'),
    );
    return file;
  };

  const low = await runAgent(['check', '--config', config(role)]);
  t.equal(low.code, 1, low.stderr);
  t.match(low.stdout, /^db_pg \(orders, postgresql\)\n/);
  t.match(low.stdout, new RegExp(`  missing  pg_monitor: .*\\n           fix: GRANT pg_monitor TO "${role}";\\n`));
  t.match(low.stdout, /\ndb_maria \(db_maria, mariadb\)\n {2}ok {7}connect: /, 'the second database is checked too');

  const full = await runAgent(['check', '--config', config('postgres')]);
  t.equal(full.code, 0, full.stdout);
  t.notMatch(full.stdout, /missing/);
  t.match(full.stdout, /ok {7}pg_stat_statements preloaded/);
});
