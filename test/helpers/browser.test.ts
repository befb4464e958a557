import { once } from 'node:events';
import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { BrowserUnderTest } from './browser.js';

const chartHeight = 2400;
// A page that draws a tall chart once its data comes, a while after the page loaded, as the pages' charts are.
const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Late chart</title></head><body><main><h1>Late chart</h1></main>
<script>
fetch('/data').then((answer) => answer.json()).then(({ height }) => {
  const canvas = document.createElement('canvas');
  canvas.width = 300;
  canvas.height = height;
  canvas.setAttribute('aria-label', 'chart');
  canvas.getContext('2d').fillRect(0, 0, 300, height);
  document.querySelector('main').append(canvas);
});
</script></body></html>`;

/** The height of a PNG, from its IHDR chunk. */
const pngHeight = (path: string): number => readFileSync(path).readUInt32BE(20);

t.test('the screenshot of a page waits for what it draws after its requests are answered', async (t) => {
  const server = createServer((request, response) => {
    if (request.url === '/data') {
      setTimeout(() => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ height: chartHeight })), 700);
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await BrowserUnderTest.launch(origin, import.meta.url);
  t.teardown(() => browser.close());

  await browser.withPage(t, async ({ page }) => {
    await page.goto(origin);
  });
  const screenshotDir = fileURLToPath(new URL('../../.tap/screenshots/browser/', import.meta.url));
  const shot = readdirSync(screenshotDir).find((name) => name.endsWith('-end.png'))!;
  t.ok(pngHeight(join(screenshotDir, shot)) >= chartHeight, `the chart drawn after load is in the full-page screenshot (${pngHeight(join(screenshotDir, shot))} px high)`);
});
