const base = new URL('http://dbmon.invalid');
/** Paths a sign-in never leads back to: it would go round in a circle. */
const signInPaths = new Set(['/login', '/logout']);

/**
 * Where to go after signing in: `next` when it is a path of this server, else `/`. Anything a
 * browser could read as another origin is refused: `//host`, `/\host` (browsers treat `\` as `/`),
 * schemes, and control characters that URL parsing drops.
 */
export function safeNextPath(next: string | undefined): string {
  if (next === undefined || !next.startsWith('/') || next.startsWith('//') || next.includes('\\') || hasControlCharacter(next)) return '/';
  const url = new URL(next, base);
  if (url.origin !== base.origin || signInPaths.has(url.pathname)) return '/';
  return `${url.pathname}${url.search}${url.hash}`;
}

function hasControlCharacter(text: string): boolean {
  return [...text].some((character) => character.charCodeAt(0) < 0x20 || character.charCodeAt(0) === 0x7f);
}
