'use strict';
// The TypeScript transpile tap runs every test file through (ts-node's, transpile-only), with its output
// kept on disk by content under .tap/: without it each test process transpiles the whole server again,
// about 5 s of CPU per test file. tsconfig.json names this module as ts-node's transpiler.
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const { dirname, join } = require('node:path');

const cacheDir = join(__dirname, '..', '..', '.tap', 'transpiled');

exports.create = function create({ service, nodeModuleEmitKind }) {
  const ts = require(service.projectLocalResolveHelper('typescript', true));
  // ts-node's own transpile, the one it uses when no transpiler is named (its package exports no path to it).
  const tsNodeDist = dirname(require.resolve('@isaacs/ts-node-temp-fork-for-pr-2009'));
  const { createTsTranspileModule } = require(join(tsNodeDist, 'ts-transpile-module.js'));
  const compilerOptions = service.config.options;
  const transpile = createTsTranspileModule(ts, { compilerOptions, reportDiagnostics: true });
  const format = nodeModuleEmitKind === 'nodeesm' ? 'module' : 'commonjs';
  const salt = JSON.stringify([ts.version, compilerOptions, format]);
  mkdirSync(cacheDir, { recursive: true });
  return {
    transpile(code, { fileName }) {
      const file = join(cacheDir, `${createHash('sha256').update(salt).update('\0').update(fileName).update('\0').update(code).digest('hex')}.json`);
      try {
        return JSON.parse(readFileSync(file, 'utf8'));
      } catch {
        const { outputText, sourceMapText, diagnostics } = transpile(code, { fileName }, format);
        // Output with diagnostics is never kept: ts-node reports them on every load.
        if (diagnostics === undefined || diagnostics.length === 0) {
          const partial = `${file}.${process.pid}`;
          writeFileSync(partial, JSON.stringify({ outputText, sourceMapText }));
          renameSync(partial, file);
        }
        return { outputText, sourceMapText, diagnostics };
      }
    },
  };
};
