import { randomBytes } from 'node:crypto';
import t from 'tap';
import type { Assignment } from '../../../agent/assignments/assignment.js';
import { allPresent, checkDatabase, formatChecks } from '../../../agent/check/check-database.js';
import { consumerRequirements } from '../../../agent/check/check-mysql.js';
import type { ConnectionSettings } from '../../../agent/sources/connection-settings.js';
import type { Requirement } from '../../../agent/check/requirement.js';
import { createThrowawayMysqlDatabase } from '../../helpers/throwaway-mysql-database.js';
import { createThrowawayPostgresDatabase } from '../../helpers/throwaway-postgres-database.js';

const byName = (requirements: Requirement[]) => Object.fromEntries(requirements.map((requirement) => [requirement.name, requirement]));

function assignment(type: Assignment['type'], connection: ConnectionSettings): Assignment {
  return { id: 'db_check', name: 'checked', type, interval_seconds: 60, connection: { ...connection, password: connection.password ?? null } };
}

t.test('PostgreSQL: an under-privileged user is told what is missing, a superuser is not', async (t) => {
  const database = await createThrowawayPostgresDatabase();
  t.teardown(() => database.drop());
  const role = `dbmon_check_${randomBytes(4).toString('hex')}`;
  const owner = `${role}_owner`;
  const client = await database.connect();
  await client.query('DROP EXTENSION IF EXISTS pg_stat_statements');
  await client.query(`CREATE ROLE ${role} LOGIN PASSWORD 'check-password'`);
  await client.query(`CREATE ROLE ${owner}`);
  t.teardown(async () => {
    await database.drop();
    await database.admin(`DROP ROLE IF EXISTS ${role}`);
    await database.admin(`DROP ROLE IF EXISTS ${owner}`);
  });
  await client.query('CREATE TABLE orders (id int, customer int)');
  await client.query(`ALTER TABLE orders OWNER TO ${owner}`);

  const low = await checkDatabase(assignment('postgresql', { ...database.settings, username: role, password: 'check-password' }));
  const found = byName(low.requirements);
  t.match(found.connect, { status: 'ok' });
  t.match(found.pg_monitor, { status: 'missing', fix: `GRANT pg_monitor TO "${role}";` });
  t.match(found['pg_stat_statements extension'], { status: 'missing', fix: /^CREATE EXTENSION pg_stat_statements;/ });
  t.match(found['pg_stat_statements preloaded'], { status: 'warning', detail: /cannot tell without pg_monitor/ });
  t.match(found.hypopg, { status: 'warning', fix: /CREATE EXTENSION hypopg;/ });
  t.match(found['SELECT on tables'], { status: 'warning', detail: /public\.orders/, fix: `GRANT SELECT ON ALL TABLES IN SCHEMA "public" TO "${role}";` });
  t.match(found['apply index suggestions'], { status: 'warning', fix: `GRANT "${owner}" TO "${role}"; GRANT CREATE ON SCHEMA "public" TO "${role}";` });
  t.notOk(allPresent([low]), 'something is missing');
  const lines = formatChecks([low]);
  t.equal(lines[0], 'db_check (checked, postgresql)');
  t.ok(lines.includes(`           fix: GRANT pg_monitor TO "${role}";`), 'the fix is printed under its requirement');

  // The fixes it printed, run as they are, put everything in place.
  for (const requirement of low.requirements) {
    if (requirement.fix === undefined || requirement.name === 'hypopg' || requirement.name === 'pg_stat_statements preloaded') continue;
    await client.query(requirement.fix);
  }
  const fixed = await checkDatabase(assignment('postgresql', { ...database.settings, username: role, password: 'check-password' }));
  t.same(fixed.requirements.filter((r) => r.status !== 'ok' && r.name !== 'hypopg').map((r) => r.name), [], 'ok after the printed fixes');
  t.match(byName(fixed.requirements)['pg_stat_statements preloaded'], { status: 'ok', detail: /shared_preload_libraries/ });
  t.ok(allPresent([fixed]));

  const superuser = await checkDatabase(assignment('postgresql', database.settings));
  t.same(superuser.requirements.filter((r) => r.status !== 'ok'), [], 'a superuser has everything (hypopg is created per analysis)');

  const refused = await checkDatabase(assignment('postgresql', { ...database.settings, username: `${role}_absent`, password: 'not-shown' }));
  t.match(refused.requirements, [{ name: 'connect', status: 'missing', detail: /does not exist/, fix: /^CREATE ROLE/ }]);
  t.notMatch(JSON.stringify(refused), /not-shown/, 'no password in the report');
});

t.test('MariaDB: an under-privileged user is told what is missing, a fully privileged one is not', async (t) => {
  const database = await createThrowawayMysqlDatabase();
  const user = `dbmon_check_${randomBytes(4).toString('hex')}`;
  await database.admin(`CREATE USER '${user}'@'%' IDENTIFIED BY 'check-password'`);
  t.teardown(async () => {
    await database.admin(`DROP USER IF EXISTS '${user}'@'%'`);
    await database.drop();
  });
  await database.admin(`GRANT USAGE ON \`${database.name}\`.* TO '${user}'@'%'`);
  await database.admin(`GRANT SHOW VIEW ON \`${database.name}\`.* TO '${user}'@'%'`);
  const settings = { ...database.settings, username: user, password: 'check-password' };

  const low = await checkDatabase(assignment('mariadb', settings));
  const found = byName(low.requirements);
  const grantee = `'${user}'@'%'`;
  t.match(found.connect, { status: 'ok' });
  t.match(found.PROCESS, { status: 'missing', fix: `GRANT PROCESS ON *.* TO ${grantee};` });
  t.match(found['SELECT on the database'], { status: 'missing', fix: `GRANT SELECT ON \`${database.name}\`.* TO ${grantee};` });
  t.match(found.performance_schema, { status: 'ok' });
  t.match(found['SELECT on performance_schema'], { status: 'missing', fix: `GRANT SELECT ON performance_schema.* TO ${grantee};` });
  t.match(found['apply index suggestions'], { status: 'warning', fix: `GRANT ALTER ON \`${database.name}\`.* TO ${grantee};` });
  t.match(found['replica status'], { status: 'warning', fix: `GRANT REPLICA MONITOR ON *.* TO ${grantee};` });
  t.notOk(allPresent([low]));

  for (const requirement of low.requirements) if (requirement.fix !== undefined) await database.admin(requirement.fix);
  const granted = await checkDatabase(assignment('mariadb', settings));
  const after = byName(granted.requirements);
  t.match(after['UPDATE on performance_schema.threads'], { status: 'warning', fix: `GRANT UPDATE ON performance_schema.threads TO ${grantee};` }, 'now readable, the optional grant shows');
  await database.admin(after['UPDATE on performance_schema.threads']!.fix!);
  const full = await checkDatabase(assignment('mariadb', settings));
  t.same(full.requirements.filter((r) => r.status !== 'ok'), [], 'everything in place after the printed fixes');
  t.ok(allPresent([full]));
  t.match(byName(full.requirements), { 'consumer statements_digest': { status: 'ok' }, 'statement instruments': { status: 'ok' }, 'latency histogram': { status: 'ok' } });

  const root = await checkDatabase(assignment('mariadb', database.settings));
  t.same(root.requirements.filter((r) => r.status !== 'ok'), [], 'root has everything');

  const refused = await checkDatabase(assignment('mariadb', { ...settings, password: 'wrong' }));
  t.match(refused.requirements, [{ name: 'connect', status: 'missing', detail: /Access denied/ }]);
});

t.test('a disabled performance_schema consumer is missing, with the statement and the my.cnf line', async (t) => {
  // Switching a consumer off on the shared server would disturb other tests: the rows are the query's.
  const found = byName(consumerRequirements([{ name: 'global_instrumentation', enabled: 'YES' }, { name: 'statements_digest', enabled: 'NO' }]));
  t.match(found['consumer global_instrumentation'], { status: 'ok' });
  t.match(found['consumer statements_digest'], {
    status: 'missing',
    fix: "UPDATE performance_schema.setup_consumers SET ENABLED = 'YES' WHERE NAME = 'statements_digest';  and in my.cnf [mysqld]: performance_schema_consumer_statements_digest = ON",
  });
});
