// The agent as a child process for the benchmarks: its YAML config of local databases, its start
// with the node flags of its own `#!` line and bench/agent-memory-probe.js, its log lines, memory
// and spooled samples.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const agentEntry = join(root, 'dist', 'agent', 'main.js');
const memoryProbe = join(root, 'bench', 'agent-memory-probe.js');

export function agentYaml(serverUrl, agentKey, stateDir, databases, intervalSeconds) {
  const lines = [
    'server:',
    `  url: ${serverUrl}`,
    `  agent_key: ${agentKey}`,
    `state_dir: ${stateDir}`,
    'log:',
    // debug, for the 'sample spooled' lines that tell when every database has been collected.
    '  level: debug',
  ];
  if (databases.length === 0) {
    lines.push('databases: []');
  } else {
    lines.push('databases:');
    databases.forEach((database, i) => {
      const { host, port, database: dbName, username, password } = database.settings;
      lines.push(
        `  - id: db_bench${String(i + 1).padStart(2, '0')}`,
        `    name: ${database.name}`,
        `    type: ${database.type}`,
        `    interval_seconds: ${intervalSeconds}`,
        `    connection: { host: ${host}, port: ${port}, database: ${dbName}, username: ${username}${password ? `, password: ${password}` : ''} }`,
      );
    });
  }
  return `${lines.join('\n')}\n`;
}

/** The node flags of the agent's `#!/usr/bin/env -S node ...` line: the flags it runs with when started as `dbmon-agent`. */
export function shebangNodeFlags() {
  const first = readFileSync(agentEntry, 'utf8').split('\n', 1)[0];
  const words = first.replace(/^#!\S+\s*/, '').split(/\s+/).filter(Boolean);
  return words.filter((word) => word.startsWith('--'));
}

/** The agent as a child process; its JSON log lines are parsed as they come, its heap figures read from `memoryFile`. */
export function startAgent(children, name, configFile, nodeFlags, memoryFile) {
  const child = spawn(process.execPath, [...nodeFlags, '--import', memoryProbe, agentEntry, 'run', '--config', configFile], {
    cwd: root,
    env: { ...process.env, DBMON_AGENT_CONFIG: '', DBMON_AGENT_KEY: '', DBMON_AGENT_KEY_FILE: '', DBMON_BENCH_MEMORY_FILE: memoryFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const proc = { name, child, lines: [], stderr: [], exited: once(child, 'exit'), memoryFile };
  let pending = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    pending += chunk;
    const parts = pending.split('\n');
    pending = parts.pop();
    for (const part of parts) {
      try {
        proc.lines.push(JSON.parse(part));
      } catch {
        proc.stderr.push(`${part}\n`);
      }
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk) => proc.stderr.push(chunk));
  children.push(proc);
  return proc;
}

export function vmRssKiB(pid) {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (match === null) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(match[1]);
}

/** The agent's last reported V8 heap in MiB (used, total), or undefined before its first report. */
export function heapMiB(proc) {
  try {
    const { heapUsed, heapTotal } = JSON.parse(readFileSync(proc.memoryFile, 'utf8'));
    return { used: heapUsed / 1048576, total: heapTotal / 1048576 };
  } catch {
    return undefined;
  }
}

export function checkAlive(proc) {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) {
    throw new Error(`${proc.name} exited (${proc.child.exitCode ?? proc.child.signalCode})`);
  }
}

/** Spooled samples per database id, from the agent's debug lines; throws on an unreachable one. */
export function spooled(proc) {
  const counts = new Map();
  for (const line of proc.lines) {
    if (line.msg !== 'sample spooled') continue;
    if (line.reachable !== true) throw new Error(`${proc.name}: ${line.databaseId} spooled an unreachable sample`);
    counts.set(line.databaseId, (counts.get(line.databaseId) ?? 0) + 1);
  }
  return counts;
}
