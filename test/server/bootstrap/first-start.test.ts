import { existsSync, readFileSync, statSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { createLogger } from '../../../common/logger.js';
import { ensureInitialAdmin, initialAdminFileName } from '../../../server/bootstrap/first-start.js';
import { startTestServer } from '../../helpers/test-server.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { waitUntil } from '../../helpers/wait-until.js';

const silent = createLogger('silent');

t.test('the credentials file appears whole: nothing is ever written into it under its own name', async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.close());
  const dir = tempDir(t, 'dbmon-first-start-');
  const events: string[] = [];
  // inotify: a file created and then written under its name gives "rename" then "change"; one renamed into place only "rename".
  const watcher = watch(dir, (event, name) => events.push(`${event} ${name}`));
  t.teardown(() => watcher.close());

  const admin = await ensureInitialAdmin(server.services, dir, server.clock.now, silent);
  await waitUntil('the credentials file to appear', async () => events.includes(`rename ${initialAdminFileName}`));
  // Events of one directory arrive in order: one for a file made after the credentials means theirs have all come.
  writeFileSync(join(dir, 'marker'), '');
  await waitUntil('the marker to appear', async () => events.some((event) => event.endsWith(' marker')));

  t.same(
    events.filter((event) => event.endsWith(` ${initialAdminFileName}`)),
    [`rename ${initialAdminFileName}`],
    'the file only ever appeared, by rename',
  );
  t.same(JSON.parse(readFileSync(join(dir, initialAdminFileName), 'utf8')), admin);
  t.equal(statSync(join(dir, initialAdminFileName)).mode & 0o777, 0o600, 'owner-only');
});

t.test('a temporary file left by a crash during a first start is replaced, not kept', async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.close());
  const dir = tempDir(t, 'dbmon-first-start-');
  const leftover = join(dir, `${initialAdminFileName}.tmp`);
  writeFileSync(leftover, '{"org_id": "org_half', { mode: 0o644 });

  const admin = await ensureInitialAdmin(server.services, dir, server.clock.now, silent);
  t.same(JSON.parse(readFileSync(join(dir, initialAdminFileName), 'utf8')), admin, 'the credentials are whole');
  t.notOk(existsSync(leftover), 'no temporary file stays behind');
});
