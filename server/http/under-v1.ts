/** Case-blind on purpose: a /V1/... path is the API's too (authenticated, counted, then answered 404 by the case-sensitive router). */
export function underV1(path: string): boolean {
  const lower = path.toLowerCase();
  return lower === '/v1' || lower.startsWith('/v1/');
}
