#!/usr/bin/env node
// Writes the client libraries' generated files from the OpenAPI document the built server serves
// (`npm run build` first). With --check it writes nothing and exits 1, naming each generated file
// that differs from a fresh generation: CI fails when a route changed without its clients.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateGo } from './generate-go.js';
import { generateNode } from './generate-node.js';
import { generatePython } from './generate-python.js';
import { servedOpenApiDocument } from './served-openapi.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Each generator: `(document) => Promise<Record<path from the repository root, file content>>`. */
const generators = [generateNode, generatePython, generateGo];

const check = process.argv.includes('--check');
const document = await servedOpenApiDocument();
const stale = [];
for (const generate of generators) {
  for (const [path, content] of Object.entries(await generate(document))) {
    const file = join(root, path);
    if (check) {
      if (readOrNothing(file) !== content) stale.push(path);
    } else {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, content);
    }
  }
}
if (stale.length > 0) {
  process.stderr.write(`generated client files differ from a fresh generation (run npm run clients:generate):\n  ${stale.join('\n  ')}\n`);
  process.exit(1);
}

function readOrNothing(file) {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
