import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type BrowserContext, type Page, type Request } from 'playwright-core';
import type { Test } from 'tap';

/** Debian's chromium (scripts/setup-services.sh installs it); no tool downloads a browser of its own. */
const executablePath = '/usr/bin/chromium';
/** Under tap's output directory (git-ignored), one folder per test file. */
const screenshotRoot = fileURLToPath(new URL('../../.tap/screenshots/', import.meta.url));
/** How long a page may take to settle before a screenshot; past it the test fails, naming what was pending. */
const settleTimeoutMs = 15_000;

export interface PageOptions {
  /** Console errors the test provokes on purpose (a CSP refusal); any other fails the test. */
  expectedConsoleErrors?: RegExp[];
  /** Origins besides the server's the page may reach: an OAuth client's callback the test runs. */
  allowedOrigins?: string[];
}

export interface WatchedPage {
  page: Page;
  /** Once the page settled (settled()), saves a screenshot of it and checks it with axe: any accessibility violation fails the test. */
  audit: (label: string) => Promise<void>;
}

/**
 * One headless chromium per test file, with a fresh profile. Each `withPage` starts with no cookies,
 * records console errors and every request that leaves the server's origin (refused, never sent),
 * and ends with a screenshot and an accessibility check of the last page.
 */
export class BrowserUnderTest {
  private constructor(
    private readonly context: BrowserContext,
    private readonly userDataDir: string,
    private readonly origin: string,
    private readonly screenshotDir: string,
  ) {}

  static async launch(origin: string, testFileUrl: string): Promise<BrowserUnderTest> {
    if (!existsSync(executablePath)) throw new Error(`${executablePath} is missing: run scripts/setup-services.sh (it installs Debian's chromium)`);
    const userDataDir = mkdtempSync(join(tmpdir(), 'dbmon-chromium-'));
    const context = await chromium.launchPersistentContext(userDataDir, {
      executablePath,
      headless: true,
      args: ['--no-sandbox', '--disable-background-networking'],
    });
    const screenshotDir = join(screenshotRoot, basename(fileURLToPath(testFileUrl)).replace(/\.test\.ts$/, ''));
    mkdirSync(screenshotDir, { recursive: true });
    return new BrowserUnderTest(context, userDataDir, new URL(origin).origin, screenshotDir);
  }

  async withPage(t: Test, body: (watched: WatchedPage) => Promise<void>, options: PageOptions = {}): Promise<void> {
    await this.context.clearCookies();
    const page = await this.context.newPage();
    const consoleErrors: string[] = [];
    const offOrigin: string[] = [];
    const pending = new Set<Request>();
    page.on('request', (request) => pending.add(request));
    page.on('requestfinished', (request) => pending.delete(request));
    page.on('requestfailed', (request) => pending.delete(request));
    page.on('console', (message) => {
      if (message.type() === 'error' && !options.expectedConsoleErrors?.some((expected) => expected.test(message.text()))) consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(`uncaught: ${error.message}`));
    await page.route('**/*', (route) => {
      const url = route.request().url();
      const origin = new URL(url).origin;
      if (origin === this.origin || options.allowedOrigins?.includes(origin)) return route.continue();
      offOrigin.push(url);
      return route.abort('blockedbyclient');
    });
    const screenshot = (label: string) => page.screenshot({ path: join(this.screenshotDir, `${slug(t.name)}-${slug(label)}.png`), fullPage: true });
    const audit = async (label: string) => {
      await settled(page, pending);
      await screenshot(label);
      const { violations } = await new AxeBuilder({ page }).options({ resultTypes: ['violations'] }).analyze();
      t.same(
        violations.map((violation) => `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`),
        [],
        `no accessibility violations on ${label} (${page.url()})`,
      );
    };
    let finished = false;
    try {
      await body({ page, audit });
      finished = true;
      await audit('end');
    } finally {
      // A failing test leaves its screenshot too: it is the first thing to look at.
      if (!finished) await screenshot('failed').catch(() => undefined);
      await page.close();
    }
    t.same(consoleErrors, [], 'no console errors');
    t.same(offOrigin, [], 'no request left the origin');
  }

  async close(): Promise<void> {
    await this.context.close();
    rmSync(this.userDataDir, { recursive: true, force: true });
  }
}

/**
 * Waits until the page is drawn as it will stay: none of its requests pending across two animation
 * frames (a chart is drawn a frame or so after its data came, and one answer may start another
 * request), its fonts loaded, and nothing it marks aria-busy (a form still loading).
 */
async function settled(page: Page, pending: ReadonlySet<Request>): Promise<void> {
  const deadline = Date.now() + settleTimeoutMs;
  for (;;) {
    if (pending.size === 0) {
      await page.evaluate(async () => {
        await document.fonts.ready;
        await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
      });
      if (pending.size === 0 && (await page.locator('[aria-busy="true"]').count()) === 0) return;
    }
    if (Date.now() > deadline) throw new Error(`${page.url()} did not settle in ${settleTimeoutMs} ms; pending: ${[...pending].map((request) => request.url()).join(', ')}`);
    await page.waitForTimeout(25);
  }
}

/** Signs in through the /login page, asking to go on to `next`, and waits until the browser is there. */
export async function signInThroughPage(page: Page, origin: string, email: string, password: string, next = '/'): Promise<void> {
  await page.goto(next === '/' ? `${origin}/login` : `${origin}/login?${new URLSearchParams({ next })}`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await Promise.all([page.waitForURL(`${origin}${next}`), page.getByRole('button', { name: 'Sign in' }).click()]);
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 80);
}
