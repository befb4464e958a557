import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { openSpool } from '../../../agent/delivery/spool.js';
import { databaseFileName } from '../../../server/state-dir.js';
import { startTestEmbeddedAgent } from '../../helpers/embedded-agent-under-test.js';
import { promtoolProblems, scrapeMetrics, seriesValue } from '../../helpers/scrape-metrics.js';
import { makeSnapshot } from '../../helpers/snapshot-factory.js';
import { startTestServer } from '../../helpers/test-server.js';
import { waitUntil } from '../../helpers/wait-until.js';

const token = 'scrape-token-0123456789';
const embedded = '{agent_id="embedded",agent_name="embedded"}';

t.test("the embedded agent's spool on /metrics: its depth and oldest age while ingest fails, then drained", async (t) => {
  const server = await startTestServer({ metricsToken: token });
  t.teardown(server.close);
  t.notMatch(await scrapeMetrics(server, token), embedded, 'nothing before the embedded agent sent a batch');

  // A backlog left by a server stopped while it waited: four batches at a cap of three samples (the oldest dropped), the first one already attempted.
  const spoolPath = join(server.stateDir, 'embedded-spool.db');
  const appendedAt = Date.now() - 600_000;
  const left = openSpool(spoolPath, { maxSamples: 3, now: () => new Date(appendedAt) });
  for (let i = 0; i < 4; i++) left.append([{ database_id: 'db_deleted_since', snapshot: makeSnapshot(new Date(appendedAt + i * 10_000)) }]);
  left.nextToSend({ maxSamples: 1, maxBytes: 1e6 });
  left.close();

  // Another process holds the state database's write lock: every delivery fails at once.
  const other = new Database(join(server.stateDir, databaseFileName));
  t.teardown(() => other.close());
  other.exec('BEGIN IMMEDIATE');
  server.db.pragma('busy_timeout = 0');
  startTestEmbeddedAgent(t, server, { spoolPath, random: () => 0.5 });

  let text = '';
  await waitUntil('the embedded agent to report its spool', async () => {
    server.clock.now = new Date();
    text = await scrapeMetrics(server, token);
    return seriesValue(text, `dbmon_agent_spool_batches${embedded}`) !== undefined;
  }, 10_000);
  t.equal(seriesValue(text, `dbmon_agent_spool_batches${embedded}`), 2, 'two batches wait behind the one it retries');
  const age = seriesValue(text, `dbmon_agent_spool_oldest_batch_age_seconds${embedded}`)!;
  t.ok(age >= 600 && age < 660, `the oldest of them waits since it was appended: ${age} s`);
  t.equal(seriesValue(text, `dbmon_agent_spool_dropped_samples${embedded}`), 1);
  t.equal(promtoolProblems(text), '');

  other.exec('ROLLBACK');
  await waitUntil('the spool to drain', async () => {
    server.clock.now = new Date();
    text = await scrapeMetrics(server, token);
    return seriesValue(text, `dbmon_agent_spool_batches${embedded}`) === 0;
  }, 20_000);
  t.equal(seriesValue(text, `dbmon_agent_spool_oldest_batch_age_seconds${embedded}`), 0);
  t.equal(seriesValue(text, `dbmon_agent_spool_dropped_samples${embedded}`), 1);
  t.notMatch(text, 'dbmon_agent_last_seen_age_seconds{agent_id="embedded"', 'it runs in the server: no age of a last call');
  t.equal(promtoolProblems(text), '');
});
