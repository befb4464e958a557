// Child processes for the benchmarks: start, wait for readiness, stop; output kept for failures.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { join, resolve } from 'node:path';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** A port nobody listens on now; the child binds it a moment later. */
export async function freePort() {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address();
  probe.close();
  await once(probe, 'close');
  return port;
}

/** A child node process whose output is kept (and shown if the bench fails); `children` is where the caller stops it. */
export function startChild(children, name, cwd, args, env) {
  const child = spawn(process.execPath, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = [];
  child.stdout.setEncoding('utf8').on('data', (chunk) => output.push(chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk) => output.push(chunk));
  const exited = once(child, 'exit');
  const proc = { name, child, output, exited };
  children.push(proc);
  return proc;
}

export async function stopChild(proc) {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  proc.child.kill('SIGTERM');
  const timer = sleep(15_000).then(() => 'timeout');
  if ((await Promise.race([proc.exited, timer])) === 'timeout') {
    proc.child.kill('SIGKILL');
    await proc.exited;
  }
}

export async function waitFor(proc, what, check) {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (proc.child.exitCode !== null) throw new Error(`${proc.name} exited (${proc.child.exitCode}) while waiting for ${what}`);
    if (await check().catch(() => false)) return;
    await sleep(50);
  }
  throw new Error(`${proc.name}: timed out waiting for ${what}`);
}

const clockTicksPerSecond = 100; // USER_HZ, 100 on Linux/x86-64 (getconf CLK_TCK)

/** User + system CPU of a child so far, in ms, from /proc (Linux); undefined elsewhere. */
export function childCpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicksPerSecond;
  } catch {
    return undefined;
  }
}

/** bench/event-loop-probe.js, to load into a server child with `--import`. */
export const eventLoopProbe = new URL('./event-loop-probe.js', import.meta.url).href;

/** Ends the server's current event-loop window (bench/event-loop-probe.js) and returns it, the `number`th. */
export async function eventLoopWindow(proc, file, number) {
  proc.child.kill('SIGUSR2');
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const window = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
    if (window?.window === number) return window;
    await sleep(20);
  }
  throw new Error(`the server wrote no event-loop window ${number}`);
}

/** Node's flags for a server child that writes a V8 CPU profile into `profileDir` when it stops; none without a directory. */
export function cpuProfileArgs(profileDir) {
  return profileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-interval=500', `--cpu-prof-dir=${resolve(profileDir)}`];
}

/** Keeps a window beside that CPU profile, in event-loop-blocks.json (bench/loop-blocks.js reads both); nothing without a directory. */
export function keepLoopWindow(profileDir, window) {
  if (profileDir !== undefined) writeFileSync(join(resolve(profileDir), 'event-loop-blocks.json'), JSON.stringify(window));
}

/** A window's blocks over 40 ms, longest first: each held time with the CPU time and garbage collection within it. */
export function describeBlocks(window) {
  const blocks = [...window.blocks].sort((a, b) => b.ms - a.ms);
  const each = blocks.map((block) => `${block.ms.toFixed(0)} (cpu ${block.cpuMs.toFixed(0)}, gc ${block.gcMs.toFixed(0)})`);
  return `loop blocks over 40 ms: ${blocks.length}, over 50 ms: ${blocks.filter((block) => block.ms > 50).length}${blocks.length === 0 ? '' : `, ms: ${each.join(', ')}`}`;
}
