import type { Context } from 'koa';
import type { ComponentChildren } from 'preact';
import { render } from 'preact-render-to-string';
import { Layout, type NavSection } from './layout.js';
import type { Viewer } from './page-viewer.js';
import type { AssetName, StaticAssets } from './static-assets.js';

export interface PageOptions {
  title: string;
  status?: number;
  viewer?: Viewer | undefined;
  /** The navigation entry the page belongs to. */
  section?: NavSection;
  wide?: boolean;
  /** Built browser code and stylesheets (web/) the page loads besides dbmon.css. */
  scripts?: AssetName[];
  stylesheets?: AssetName[];
}

/** Answers with a whole page: the layout around the content, rendered to text (Preact escapes every text and attribute). */
export class PageRenderer {
  constructor(private readonly assets: StaticAssets) {}

  send(ctx: Context, options: PageOptions, content: ComponentChildren): void {
    const href = (name: AssetName) => this.assets.href(name);
    ctx.status = options.status ?? 200;
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = `<!DOCTYPE html>${render(
      <Layout
        title={options.title}
        stylesheets={['dbmon.css' as const, ...(options.stylesheets ?? [])].map(href)}
        icon={href('icon.svg')}
        scripts={(options.scripts ?? []).map(href)}
        nonce={ctx.state.cspNonce as string | undefined}
        viewer={options.viewer}
        section={options.section}
        wide={options.wide}
      >
        {content}
      </Layout>,
    )}`;
  }
}
