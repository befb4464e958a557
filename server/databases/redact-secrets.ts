const mask = '[redacted]';

/**
 * `text` with whatever could be a secret masked: any database connection URL as a whole
 * (`postgresql://...`, `mysql://...`), the credentials of any other URL, the value after a
 * password-like key (`password=...`, `pwd: ...`, `"secret":"..."`; MySQL's `(using password: YES)`
 * stays), and each of `secrets` wherever it still appears.
 */
export function redactSecrets(text: string, secrets: readonly (string | null)[]): string {
  let redacted = text
    .replace(/\b(?:postgres(?:ql)?|mysql|mariadb|jdbc:[a-z]+):\/\/\S*/gi, `[connection string ${mask}]`)
    .replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]*@/gi, `$1${mask}@`)
    .replace(/\b(pass(?:word|wd|phrase)?|pwd|secret|token|api[_-]?key)(["']?\s*[:=]\s*["']?)(?!(?:YES|NO)\))[^\s"',;&)\]}]+/gi, `$1$2${mask}`);
  for (const secret of secrets) if (secret) redacted = redacted.split(secret).join(mask);
  return redacted;
}
