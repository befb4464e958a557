import { randomBytes } from 'node:crypto';
import t from 'tap';
import { composeServices } from '../../../server/compose-services.js';
import { openStateDir } from '../../../server/state-dir.js';
import { migrate } from '../../../server/storage/migrate.js';
import { cli } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { createServiceKey } from '../../helpers/test-server.js';
import { createThrowawayMysqlDatabase } from '../../helpers/throwaway-mysql-database.js';

t.test('dbmon databases check: the stored connection, decrypted with the state directory key, checked as the agent would', async (t) => {
  const mariadb = await createThrowawayMysqlDatabase();
  const user = `dbmon_check_${randomBytes(4).toString('hex')}`;
  const password = `pw-${randomBytes(6).toString('hex')}`;
  await mariadb.admin(`CREATE USER '${user}'@'%' IDENTIFIED BY '${password}'`);
  await mariadb.admin(`GRANT SELECT ON \`${mariadb.name}\`.* TO '${user}'@'%'`);
  t.teardown(async () => {
    await mariadb.admin(`DROP USER IF EXISTS '${user}'@'%'`);
    await mariadb.drop();
  });

  const stateDir = tempDir(t, 'dbmon-cli-check-');
  const now = new Date();
  const { db, secretKey } = openStateDir(stateDir, undefined);
  migrate(db);
  const { services } = composeServices(db, secretKey);
  const orgId = services.identity.createOrganization({ name: 'checks', plan: 'free' }, now).id;
  const register = (name: string, username: string, secret: string) =>
    services.databases.create(
      orgId,
      {
        name,
        type: 'mariadb',
        connection: { host: '127.0.0.1', port: 3306, database: mariadb.name, username, password: secret, ssl: false },
        monitoring: { enabled: true, interval_seconds: 60 },
        agent_id: null,
      },
      now,
    ).id;
  const low = register('low', user, password);
  const root = register('root', 'root', '');
  const principal = services.apiKeys.authenticate(createServiceKey(services, orgId, now, { scopes: ['agent'] }), now);
  const agent = services.agents.identify(principal, { hostname: 'far-away', version: '1' }, now);
  const remote = services.databases.create(
    orgId,
    { name: 'remote', type: 'postgresql', connection: { host: 'h', database: 'd', username: 'u', ssl: false }, monitoring: { enabled: true, interval_seconds: 60 }, agent_id: agent.id },
    now,
  ).id;
  db.close();
  const dir = ['--state-dir', stateDir];

  const missing = await cli(['databases', 'check', low, ...dir]);
  t.equal(missing.code, 1, missing.stderr.join('\n'));
  t.equal(missing.stdout[0], `${low} (low, mariadb)`);
  t.match(missing.stdout.join('\n'), /ok {7}connect: connected as dbmon_check_/, 'the decrypted password let it in');
  t.match(missing.stdout.join('\n'), `fix: GRANT PROCESS ON *.* TO '${user}'@'%';`);
  t.notMatch([...missing.stdout, ...missing.stderr].join('\n'), password, 'the password is never printed');

  const full = await cli(['databases', 'check', root, ...dir]);
  t.equal(full.code, 0, full.stdout.join('\n'));

  const elsewhere = await cli(['databases', 'check', remote, ...dir]);
  t.equal(elsewhere.code, 1);
  t.match(elsewhere.stderr.join('\n'), `collected by agent ${agent.id}: run "dbmon-agent check" on that agent's host`);
  const unknown = await cli(['databases', 'check', 'db_nothere', ...dir]);
  t.equal(unknown.code, 1);
  t.match(unknown.stderr.join('\n'), /No database db_nothere/);
  t.equal((await cli(['databases', 'check', ...dir])).code, 2, 'DB_ID is required');
});
