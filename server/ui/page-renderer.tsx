import type { Context } from 'koa';
import type { ComponentChildren } from 'preact';
import { render } from 'preact-render-to-string';
import { Layout } from './layout.js';
import type { Viewer } from './page-viewer.js';
import type { StaticAssets } from './static-assets.js';

export interface PageOptions {
  title: string;
  status?: number;
  viewer?: Viewer | undefined;
}

/** Answers with a whole page: the layout around the content, rendered to text (Preact escapes every text and attribute). */
export class PageRenderer {
  constructor(private readonly assets: StaticAssets) {}

  send(ctx: Context, options: PageOptions, content: ComponentChildren): void {
    ctx.status = options.status ?? 200;
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = `<!DOCTYPE html>${render(
      <Layout title={options.title} stylesheet={this.assets.href('dbmon.css')} icon={this.assets.href('icon.svg')} viewer={options.viewer}>
        {content}
      </Layout>,
    )}`;
  }
}
