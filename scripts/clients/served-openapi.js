import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const serverEntry = fileURLToPath(new URL('../../dist/server/main.js', import.meta.url));

/**
 * The OpenAPI document the built server (`npm run build` first) serves at /v1/openapi.json, read
 * from a throwaway server on a free loopback port over an empty state directory.
 */
export async function servedOpenApiDocument() {
  const stateDir = mkdtempSync(join(tmpdir(), 'dbmon-openapi-'));
  const child = spawn(process.execPath, [serverEntry], {
    env: { PATH: process.env.PATH ?? '', DBMON_STATE_DIR: stateDir, DBMON_PORT: '0', DBMON_AGENT_EMBEDDED: 'false', DBMON_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const port = await listeningPort(child);
    const response = await fetch(`http://127.0.0.1:${port}/v1/openapi.json`);
    if (!response.ok) throw new Error(`GET /v1/openapi.json answered ${response.status}`);
    return await response.json();
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve()));
    rmSync(stateDir, { recursive: true, force: true });
  }
}

function listeningPort(child) {
  return new Promise((resolve, reject) => {
    let pending = '';
    child.stdout.on('data', (chunk) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop();
      for (const line of lines) {
        const entry = parseJson(line);
        if (entry?.msg === 'dbmon server listening') resolve(entry.port);
      }
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before it listened`)));
  });
}

function parseJson(line) {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
