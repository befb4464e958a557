/** The second-factor setup page, and where to go once done or skipped. */
export function enrollmentPath(next: string): string {
  return next === '/' ? '/account/two-factor' : `/account/two-factor?${new URLSearchParams({ next })}`;
}
