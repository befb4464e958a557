/** Case-blind on purpose: a /V1/... path is the API's too (authenticated, counted, then answered 404 by the case-sensitive router). */
export function underV1(path: string): boolean {
  // A pattern rather than the path lowered: no character but V lowers to v, and this allocates nothing.
  return /^\/[vV]1(?:\/|$)/.test(path);
}
