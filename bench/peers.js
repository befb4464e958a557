// The dbmon agent beside Debian's prometheus-postgres-exporter and prometheus-mysqld-exporter, on
// the same two databases at the same interval, in one run.
//
//   npm run build && node bench/peers.js [--interval 10] [--cycles 12] [--warmup 2] [--keep]
//
// Creates one throwaway PostgreSQL and one throwaway MariaDB database with a little traffic, and
// for each collector its own login (PostgreSQL: LOGIN and pg_monitor; MariaDB: PROCESS,
// REPLICATION CLIENT and SELECT on *.*, UPDATE on performance_schema.threads), so the statement
// time each one puts on the databases is told apart by user. Then starts, side by side:
//   - the agent (`node <its #! flags> dist/agent/main.js run`) with both databases as local
//     databases at interval_seconds --interval, its server a port nobody listens on (it spools);
//   - prometheus-postgres-exporter (DATA_SOURCE_NAME on the PostgreSQL database) and
//     prometheus-mysqld-exporter (a my.cnf for the MariaDB user), default collectors, each
//     scraped by this process every --interval seconds, as Prometheus would.
// Traffic goes on in both databases all along. After --warmup intervals, over --cycles intervals:
// CPU (user+system, /proc) of each process per cycle of one database (the agent: per spooled
// sample; an exporter: per scrape), median VmRSS, and the statement time the collector's user put
// on the engine per cycle: PostgreSQL pg_stat_statements total_exec_time + total_plan_time of
// that user's statements, MariaDB performance_schema
// events_statements_summary_by_user_by_event_name SUM_TIMER_WAIT of that user. Prints each and
// the ratios exporter/agent. Everything created is dropped, every process stopped, also on failure.
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { issueToken } from '../dist/server/auth/api-keys/api-key-token.js';
import { agentEntry, agentYaml, checkAlive, shebangNodeFlags, spooled, startAgent, vmRssKiB } from './agent-process.js';
import { childCpuMs, freePort, stopChild } from './child-processes.js';
import { integerFlag, out, percentile } from './output.js';
import { createThrowaway, dropAll, mysqlAdmin, postgresAdmin, traffic } from './throwaway-databases.js';

const { values: flags } = parseArgs({
  options: {
    interval: { type: 'string', default: '10' },
    cycles: { type: 'string', default: '12' },
    warmup: { type: 'string', default: '2' },
    keep: { type: 'boolean', default: false },
  },
  strict: true,
});
const intervalSeconds = integerFlag(flags, 'interval');
const cycles = integerFlag(flags, 'cycles');
const warmup = integerFlag(flags, 'warmup', 0);

const median = (values) => percentile(values, 0.5);

/** A login per collector and engine; `users` is where the caller finds them to drop them. */
async function createUsers(users, who, databases) {
  const name = `dbmon_peer_${who}_${randomBytes(4).toString('hex')}`;
  const password = randomBytes(12).toString('hex');
  await postgresAdmin(`CREATE ROLE ${name} LOGIN PASSWORD '${password}' IN ROLE pg_monitor`);
  users.push({ engine: 'postgresql', name });
  await mysqlAdmin(`CREATE USER '${name}'@'127.0.0.1' IDENTIFIED BY '${password}'`);
  users.push({ engine: 'mariadb', name });
  await mysqlAdmin(`GRANT PROCESS, REPLICATION CLIENT, SELECT ON *.* TO '${name}'@'127.0.0.1'`);
  await mysqlAdmin(`GRANT UPDATE ON performance_schema.threads TO '${name}'@'127.0.0.1'`);
  for (const database of databases.filter((d) => d.type === 'postgresql')) await postgresAdmin(`GRANT CONNECT ON DATABASE ${database.name} TO ${name}`);
  return { name, password };
}

async function dropUsers(users) {
  for (const user of users.reverse()) {
    try {
      if (user.engine === 'postgresql') await postgresAdmin(`DROP OWNED BY ${user.name}; DROP ROLE IF EXISTS ${user.name}`);
      else await mysqlAdmin(`DROP USER IF EXISTS '${user.name}'@'127.0.0.1'`);
    } catch (error) {
      process.stderr.write(`could not drop ${user.engine} user ${user.name}: ${error instanceof Error ? error.message : String(error)}\n`);
    }
  }
}

/** Statement time (ms) and statements so far of `user` on each engine. */
async function statementTime(user) {
  const pgRows = (
    await postgresAdmin(
      `SELECT coalesce(sum(s.total_exec_time + s.total_plan_time), 0)::float8 AS ms, coalesce(sum(s.calls), 0)::float8 AS calls
         FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid WHERE r.rolname = '${user}'`,
    )
  ).rows[0];
  const [mysqlRows] = await mysqlAdmin(
    `SELECT coalesce(sum(SUM_TIMER_WAIT), 0) / 1e9 AS ms, coalesce(sum(COUNT_STAR), 0) AS calls
       FROM performance_schema.events_statements_summary_by_user_by_event_name WHERE USER = '${user}'`,
  );
  return {
    postgresql: { ms: Number(pgRows.ms), calls: Number(pgRows.calls) },
    mariadb: { ms: Number(mysqlRows[0].ms), calls: Number(mysqlRows[0].calls) },
  };
}

function startExporter(children, name, command, args, env) {
  const child = spawn(command, args, { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = [];
  child.stdout.setEncoding('utf8').on('data', (chunk) => output.push(chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk) => output.push(chunk));
  const proc = { name, child, output, stderr: output, lines: [], exited: once(child, 'exit') };
  children.push(proc);
  return proc;
}

/** One scrape; resolves with the body, rejects on a non-200 answer. */
function scrape(port) {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path: '/metrics' }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk) => (body += chunk));
      response.on('end', () => (response.statusCode === 200 ? resolve(body) : reject(new Error(`status ${response.statusCode}`))));
    }).on('error', reject);
  });
}

/** A scrape that must show the exporter reached its database (`pg_up 1` / `mysql_up 1`). */
async function scrapeUp(exporter) {
  const body = await scrape(exporter.port);
  if (!new RegExp(`^${exporter.upMetric} 1$`, 'm').test(body)) throw new Error(`${exporter.name}: ${exporter.upMetric} is not 1`);
  exporter.scrapes += 1;
  return body;
}

async function main() {
  const workDir = mkdtempSync(join(tmpdir(), 'dbmon-bench-peers-'));
  const created = [];
  const users = [];
  const children = [];
  let trafficOn = false;
  let failed = true;
  try {
    if (!existsSync(agentEntry)) throw new Error(`${agentEntry} is missing; run npm run build first`);
    out(`dbmon agent vs Debian's exporters: node ${process.version}, ${availableParallelism()} CPUs, load average at start ${loadavg()[0].toFixed(2)}`);
    const databases = [await createThrowaway(created, 'postgresql'), await createThrowaway(created, 'mariadb')];
    for (const database of databases) await traffic(database, 50);
    const agentUser = await createUsers(users, 'agent', databases);
    const exporterUser = await createUsers(users, 'exporter', databases);

    // The agent.
    const agentDatabases = databases.map((database) => ({
      ...database,
      settings: { ...database.settings, username: agentUser.name, password: agentUser.password },
    }));
    const configFile = join(workDir, 'agent.yaml');
    const serverUrl = `http://127.0.0.1:${await freePort()}`;
    writeFileSync(configFile, agentYaml(serverUrl, issueToken('service_account').value, join(workDir, 'state'), agentDatabases, intervalSeconds), { mode: 0o600 });
    const nodeFlags = shebangNodeFlags();
    const agent = startAgent(children, 'agent', configFile, nodeFlags, join(workDir, 'memory.json'));
    out(`agent: node ${[...nodeFlags, '--import', 'bench/agent-memory-probe.js'].join(' ')} dist/agent/main.js run, interval ${intervalSeconds} s`);

    // The exporters.
    const [pgDatabase] = databases;
    const pgPort = await freePort();
    const postgresExporter = startExporter(children, 'prometheus-postgres-exporter', '/usr/bin/prometheus-postgres-exporter', [`--web.listen-address=127.0.0.1:${pgPort}`], {
      DATA_SOURCE_NAME: `postgresql://${exporterUser.name}:${exporterUser.password}@127.0.0.1:5432/${pgDatabase.name}?sslmode=disable`,
    });
    const myCnf = join(workDir, 'exporter.my.cnf');
    writeFileSync(myCnf, `[client]\nuser=${exporterUser.name}\npassword=${exporterUser.password}\nhost=127.0.0.1\nport=3306\n`, { mode: 0o600 });
    const mysqlPort = await freePort();
    const mysqlExporter = startExporter(children, 'prometheus-mysqld-exporter', '/usr/bin/prometheus-mysqld-exporter', [
      `--web.listen-address=127.0.0.1:${mysqlPort}`,
      `--config.my-cnf=${myCnf}`,
    ]);
    const exporters = [
      { ...postgresExporter, port: pgPort, upMetric: 'pg_up', engine: 'postgresql', scrapes: 0 },
      { ...mysqlExporter, port: mysqlPort, upMetric: 'mysql_up', engine: 'mariadb', scrapes: 0 },
    ];
    await sleep(1000);
    for (const exporter of exporters) await scrapeUp(exporter);

    // Traffic all along, in the background.
    trafficOn = true;
    const trafficDone = (async () => {
      while (trafficOn) {
        for (const database of databases) await traffic(database, 2);
        await sleep(200);
      }
    })();

    const scrapeCycle = async () => {
      for (const exporter of exporters) await scrapeUp(exporter);
    };
    for (let i = 0; i < warmup; i++) {
      await scrapeCycle();
      await sleep(intervalSeconds * 1000);
    }
    checkAlive(agent);
    const processes = [
      { name: 'dbmon agent', pid: agent.child.pid },
      ...exporters.map((exporter) => ({ name: exporter.name, pid: exporter.child.pid })),
    ];
    const cpuBefore = processes.map((proc) => childCpuMs(proc.pid));
    const timeBefore = { agent: await statementTime(agentUser.name), exporter: await statementTime(exporterUser.name) };
    const spooledBefore = spooled(agent);
    const scrapesBefore = exporters.map((exporter) => exporter.scrapes);
    const rss = processes.map(() => []);
    for (let i = 0; i < cycles; i++) {
      await scrapeCycle();
      processes.forEach((proc, index) => rss[index].push(vmRssKiB(proc.pid) / 1024));
      await sleep(intervalSeconds * 1000);
    }
    checkAlive(agent);
    const cpuAfter = processes.map((proc) => childCpuMs(proc.pid));
    const timeAfter = { agent: await statementTime(agentUser.name), exporter: await statementTime(exporterUser.name) };
    const spooledAfter = spooled(agent);
    trafficOn = false;
    await trafficDone;

    const agentCycles = { postgresql: 0, mariadb: 0 };
    for (const [id, count] of spooledAfter) {
      const engine = Number(id.slice(-2)) % 2 === 1 ? 'postgresql' : 'mariadb';
      agentCycles[engine] += count - (spooledBefore.get(id) ?? 0);
    }
    const agentCycleCount = agentCycles.postgresql + agentCycles.mariadb;
    const exporterScrapes = exporters.map((exporter, index) => exporter.scrapes - scrapesBefore[index]);
    const cpuPerCycle = [
      (cpuAfter[0] - cpuBefore[0]) / agentCycleCount,
      ...exporters.map((_, index) => (cpuAfter[index + 1] - cpuBefore[index + 1]) / exporterScrapes[index]),
    ];

    out();
    out(`${cycles} intervals of ${intervalSeconds} s after ${warmup} warm-up intervals; agent cycles: ${agentCycles.postgresql} PostgreSQL, ${agentCycles.mariadb} MariaDB; scrapes: ${exporterScrapes.join(', ')}`);
    out();
    out('process                          CPU ms per cycle of one database   VmRSS median MiB');
    processes.forEach((proc, index) => out(`${proc.name.padEnd(32)} ${cpuPerCycle[index].toFixed(1).padStart(10)}   ${median(rss[index]).toFixed(1).padStart(30)}`));
    out(`agent CPU per cycle (both engines): ${cpuPerCycle[0].toFixed(1)} ms; exporters: PostgreSQL ${cpuPerCycle[1].toFixed(1)} ms (${(cpuPerCycle[1] / cpuPerCycle[0]).toFixed(2)}x), MariaDB ${cpuPerCycle[2].toFixed(1)} ms (${(cpuPerCycle[2] / cpuPerCycle[0]).toFixed(2)}x)`);
    out(`RSS: agent ${median(rss[0]).toFixed(1)} MiB for both databases; exporters together ${(median(rss[1]) + median(rss[2])).toFixed(1)} MiB`);
    out();
    out('statement time on the monitored engine per cycle, by the collector\'s user');
    out('engine       agent ms  statements   exporter ms  statements   exporter/agent');
    for (const [index, engine] of ['postgresql', 'mariadb'].entries()) {
      const agentMs = (timeAfter.agent[engine].ms - timeBefore.agent[engine].ms) / agentCycles[engine];
      const agentCalls = (timeAfter.agent[engine].calls - timeBefore.agent[engine].calls) / agentCycles[engine];
      const exporterMs = (timeAfter.exporter[engine].ms - timeBefore.exporter[engine].ms) / exporterScrapes[index];
      const exporterCalls = (timeAfter.exporter[engine].calls - timeBefore.exporter[engine].calls) / exporterScrapes[index];
      out(
        `${engine.padEnd(12)} ${agentMs.toFixed(2).padStart(8)}  ${agentCalls.toFixed(1).padStart(10)}   ${exporterMs.toFixed(2).padStart(11)}  ${exporterCalls.toFixed(1).padStart(10)}   ${(exporterMs / agentMs).toFixed(2).padStart(14)}`,
      );
    }
    out(`1-minute load average at the end: ${loadavg()[0].toFixed(2)}`);
    failed = false;
  } catch (error) {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    for (const proc of children) {
      if (proc.stderr.length > 0) process.stderr.write(`--- ${proc.name} output ---\n${proc.stderr.join('').slice(-3000)}\n`);
    }
  } finally {
    trafficOn = false;
    for (const proc of children.reverse()) await stopChild(proc);
    await dropAll(created);
    await dropUsers(users);
    if (flags.keep) out(`work dir kept: ${workDir}`);
    else rmSync(workDir, { recursive: true, force: true });
  }
  process.exitCode = failed ? 1 : 0;
}

await main();
