/** The target of a `Link` header's rel="next", or undefined on the last page. */
export function nextLink(link: string | null): string | undefined {
  for (const part of (link ?? '').split(',')) {
    const match = /^\s*<([^>]*)>\s*;(.*)$/.exec(part);
    if (match !== null && /(^|;)\s*rel="?next"?\s*(;|$)/.test(match[2] as string)) return match[1];
  }
  return undefined;
}
