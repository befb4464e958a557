const loopbackHosts = new Set(['127.0.0.1', '[::1]']);

/**
 * Why a redirect URI cannot be registered, or undefined when it can: https, or http on a loopback
 * address (RFC 8252 §7.3); no fragment or credentials (RFC 6749 §3.1.2); written in its canonical
 * form, so the exact string comparison at the authorization endpoint cannot be slipped past with
 * `..` segments, escapes or case.
 */
export function redirectUriProblem(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopbackHosts.has(url.hostname))) {
    return 'must be https, or http on a loopback address (127.0.0.1, [::1])';
  }
  if (url.hash !== '' || uri.includes('#')) return 'must not have a fragment';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  if (url.href !== uri) return `must be written in its canonical form (${url.href})`;
  return undefined;
}
