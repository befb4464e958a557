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
  'settings-api-keys': 'web/settings-api-keys.ts',
  'settings-sessions': 'web/settings-sessions.ts',
  'settings-profile': 'web/settings-profile.ts',
  'settings-users': 'web/settings-users.ts',
  'settings-security': 'web/settings-security.ts',
  'settings-audit-log': 'web/settings-audit-log.ts',
  'settings-oauth-applications': 'web/settings-oauth-applications.ts',
  'settings-authorized-applications': 'web/settings-authorized-applications.ts',
  'alerts-page': 'web/alerts-page.ts',
  'webhooks-page': 'web/webhooks-page.ts',
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
  // The entry's name from the output's own (`[name]-[hash]`): the metafile's entry path is the real
  // path, which differs from ours when node_modules is a link.
  const { name, extension } = /^(?<name>.+)-[A-Z0-9]+(?<extension>\.\w+)$/.exec(basename(file)).groups;
  manifest[`${name}${extension}`] = basename(file);
}
writeFileSync(`${outdir}/manifest.json`, `${JSON.stringify(manifest, null, 2)}\n`);
