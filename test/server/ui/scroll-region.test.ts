import t from 'tap';
import { h } from 'preact';
import { render } from 'preact-render-to-string';
import { ScrollRegion } from '../../../server/ui/scroll-region.js';

const table = h('table', null, h('tbody', { id: 'rows' }));

t.test('a scroll region is reachable by keyboard and named by the heading whose id it is given', async (t) => {
  t.equal(
    render(h(ScrollRegion, { labelledBy: 'users-title', children: table })),
    '<div class="table-scroll" tabindex="0" role="region" aria-labelledby="users-title"><table><tbody id="rows"></tbody></table></div>',
  );
});

t.test('a scroll region without a heading carries its own name, and only that one', async (t) => {
  t.equal(
    render(h(ScrollRegion, { label: 'Signed-in browsers', children: table })),
    '<div class="table-scroll" tabindex="0" role="region" aria-label="Signed-in browsers"><table><tbody id="rows"></tbody></table></div>',
  );
});

t.test('a region must have exactly one name: none, or two that could disagree, does not compile', async (t) => {
  // @ts-expect-error: a region with no name is what axe reports as an unnamed scrollable region.
  t.ok(h(ScrollRegion, { children: table }));
  // @ts-expect-error: a heading and words of its own would name the region twice.
  t.ok(h(ScrollRegion, { labelledBy: 'users-title', label: 'Users', children: table }));
});
