import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { databaseFileName } from '../../../server/state-dir.js';
import { cli } from '../../helpers/cli.js';

t.test('orgs set --auto-apply-optimizations turns the organization setting on and off', async (t) => {
  const stateDir = mkdtempSync(join(tmpdir(), 'dbmon-cli-'));
  t.teardown(() => rmSync(stateDir, { recursive: true, force: true }));
  const dir = ['--state-dir', stateDir];
  const setting = (orgId: string) => {
    const db = new Database(join(stateDir, databaseFileName), { readonly: true });
    try {
      return db.prepare('SELECT auto_apply_optimizations FROM organizations WHERE id = ?').pluck().get(orgId);
    } finally {
      db.close();
    }
  };
  const orgId = (await cli(['orgs', 'create', '--name', 'Acme', ...dir])).stdout[0]!;
  t.equal(setting(orgId), 0, 'off by default');
  const on = await cli(['orgs', 'set', '--org', orgId, '--auto-apply-optimizations', 'true', ...dir]);
  t.equal(on.code, 0, on.stderr.join('\n'));
  t.same(on.stdout, [`${orgId}: auto-apply-optimizations true`]);
  t.equal(setting(orgId), 1);
  t.equal((await cli(['orgs', 'set', '--org', orgId, '--auto-apply-optimizations', 'false', ...dir])).code, 0);
  t.equal(setting(orgId), 0);
  const bad = await cli(['orgs', 'set', '--org', orgId, '--auto-apply-optimizations', 'maybe', ...dir]);
  t.equal(bad.code, 2);
  t.match(bad.stderr.join('\n'), /--auto-apply-optimizations/);
  const missing = await cli(['orgs', 'set', '--org', 'org_doesnotexist0000000000', '--auto-apply-optimizations', 'true', ...dir]);
  t.equal(missing.code, 1);
});
