import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Context } from 'koa';

const contentTypes = { 'dbmon.css': 'text/css; charset=utf-8', 'icon.svg': 'image/svg+xml' } as const;
export type AssetName = keyof typeof contentTypes;

interface Asset {
  path: string;
  body: Buffer;
  contentType: string;
  /** The address pages link to: the path with a hash of the content, so a browser may keep each version for good. */
  href: string;
}

/** The pages' own static files (next to this module, copied beside it by the build), read once when the app is made. */
export class StaticAssets {
  readonly #assets: Map<AssetName, Asset>;

  constructor(directory = new URL('./assets/', import.meta.url)) {
    this.#assets = new Map(
      Object.entries(contentTypes).map(([name, contentType]) => {
        const body = readFileSync(new URL(name, directory));
        const path = `/assets/${name}`;
        const version = createHash('sha256').update(body).digest('hex').slice(0, 12);
        return [name as AssetName, { path, body, contentType, href: `${path}?v=${version}` }];
      }),
    );
  }

  href(name: AssetName): string {
    return this.#asset(name).href;
  }

  /** Each asset's path with the function that answers it. */
  routes(): { path: string; send: (ctx: Context) => void }[] {
    return [...this.#assets.values()].map((asset) => ({
      path: asset.path,
      send: (ctx: Context) => {
        ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
        ctx.type = asset.contentType;
        ctx.body = asset.body;
      },
    }));
  }

  #asset(name: AssetName): Asset {
    return this.#assets.get(name)!;
  }
}
