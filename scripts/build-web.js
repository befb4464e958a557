// Builds the browser's files (web/) into dist/web: one bundle per page, uPlot's stylesheet beside
// them, each named after a hash of its content, and manifest.json mapping each entry's name to its file.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { build } from 'esbuild';

const outdir = 'dist/web';
const entryPoints = {
  overview: 'web/overview.ts',
  'database-page': 'web/database-page.ts',
  'database-sections': 'web/database-sections.ts',
  uplot: 'node_modules/uplot/dist/uPlot.min.css',
};

rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });
const result = await build({
  entryPoints,
  outdir,
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2022',
  entryNames: '[name]-[hash]',
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});
const manifest = {};
for (const [file, output] of Object.entries(result.metafile.outputs)) {
  if (output.entryPoint === undefined) continue;
  const name = Object.keys(entryPoints).find((entry) => entryPoints[entry] === output.entryPoint);
  const extension = file.slice(file.lastIndexOf('.'));
  manifest[`${name}${extension}`] = basename(file);
}
writeFileSync(`${outdir}/manifest.json`, `${JSON.stringify(manifest, null, 2)}\n`);
