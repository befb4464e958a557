import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { Context } from 'koa';
import { chosenEncoding, compressionFloorBytes, compressOnce, type ContentEncoding } from '../http/content-encoding.js';

const ownAssets = ['dbmon.css', 'icon.svg'] as const;
/** The browser code and uPlot's stylesheet, built from web/ by scripts/build-web.js. */
const builtAssets = [
  'overview.js',
  'database-page.js',
  'database-sections.js',
  'uplot.css',
  'alerts-page.js',
  'webhooks-page.js',
  'settings-api-keys.js',
  'settings-sessions.js',
  'settings-profile.js',
  'settings-users.js',
  'settings-security.js',
  'settings-audit-log.js',
  'settings-oauth-applications.js',
  'settings-authorized-applications.js',
] as const;
export type AssetName = (typeof ownAssets)[number] | (typeof builtAssets)[number];

const contentTypes: Record<string, string> = {
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  svg: 'image/svg+xml',
};

interface Asset {
  path: string;
  body: Buffer;
  /** The body brotli- and gzip-compressed, made once; none for a file under the compression floor. */
  compressed: Record<ContentEncoding, Buffer> | undefined;
  contentType: string;
  /** The address pages link to: it names the content's hash, so a browser may keep each version for good. */
  href: string;
}

/**
 * The pages' static files, read once when the app is made: our own (next to this module, copied beside
 * it by the build) versioned by a hash in the query, and the built ones, whose file names hold their hash.
 */
export class StaticAssets {
  readonly #assets: Map<AssetName, Asset>;

  constructor(directory = new URL('./assets/', import.meta.url), builtDirectory = webBuildDirectory()) {
    const manifestFile = new URL('manifest.json', builtDirectory);
    if (!existsSync(manifestFile)) throw new Error(`${manifestFile.pathname} is missing: run npm run build (it builds the browser code)`);
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Record<string, string>;
    this.#assets = new Map([
      ...ownAssets.map((name): [AssetName, Asset] => {
        const body = readFileSync(new URL(name, directory));
        const path = `/assets/${name}`;
        const version = createHash('sha256').update(body).digest('hex').slice(0, 12);
        return [name, asset(path, body, name, `${path}?v=${version}`)];
      }),
      ...builtAssets.map((name): [AssetName, Asset] => {
        const file = manifest[name];
        if (file === undefined) throw new Error(`${manifestFile.pathname} names no ${name}: run npm run build`);
        const path = `/assets/web/${file}`;
        return [name, asset(path, readFileSync(new URL(file, builtDirectory)), name, path)];
      }),
    ]);
  }

  href(name: AssetName): string {
    return this.#assets.get(name)!.href;
  }

  /** Each asset's path with the function that answers it. */
  routes(): { path: string; send: (ctx: Context) => void }[] {
    return [...this.#assets.values()].map((asset) => ({
      path: asset.path,
      send: (ctx: Context) => {
        ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
        ctx.type = asset.contentType;
        if (asset.compressed === undefined) {
          ctx.body = asset.body;
          return;
        }
        ctx.vary('Accept-Encoding');
        const encoding = chosenEncoding(ctx);
        ctx.body = encoding === undefined ? asset.body : asset.compressed[encoding];
        if (encoding !== undefined) ctx.set('Content-Encoding', encoding);
      },
    }));
  }
}

function asset(path: string, body: Buffer, name: AssetName, href: string): Asset {
  return { path, body, compressed: body.length < compressionFloorBytes ? undefined : compressOnce(body), contentType: contentTypeOf(name), href };
}

function contentTypeOf(name: string): string {
  return contentTypes[name.slice(name.lastIndexOf('.') + 1)]!;
}

/** dist/web under the package's root, whether this module runs from the sources or from dist/. */
function webBuildDirectory(): URL {
  for (let directory = new URL('./', import.meta.url); directory.pathname !== '/'; directory = new URL('../', directory)) {
    if (existsSync(new URL('package.json', directory))) return new URL('dist/web/', directory);
  }
  throw new Error('package.json not found above server/ui');
}
