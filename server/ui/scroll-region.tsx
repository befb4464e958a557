import type { ComponentChildren } from 'preact';

/** What names a region: the id of a heading on the page, or words of its own; exactly one. */
export type RegionName = { labelledBy: string; label?: never } | { label: string; labelledBy?: never };

/**
 * A box that scrolls sideways when its table is wider than the screen. Keyboard users reach it
 * (tabindex 0) to scroll it, so it must be a named region: axe's scrollable-region-focusable rule.
 */
export function ScrollRegion({ labelledBy, label, children }: RegionName & { children: ComponentChildren }) {
  return (
    <div class="table-scroll" tabindex={0} role="region" aria-labelledby={labelledBy} aria-label={label}>
      {children}
    </div>
  );
}
