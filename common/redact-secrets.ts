import { stdSerializers } from 'pino';

export const redactedValue = '[redacted]';

/** Field names (lower case, without `-` and `_`) that hold a secret: `password`, `db_password`, `X-Api-Key`, `Set-Cookie`, `agent_key`, ... */
const secretName = /(password|passwd|secret|token|apikey|agentkey|secretkey|privatekey|authorization|cookie)$/;

export function isSecretName(name: string): boolean {
  const normalized = name.toLowerCase().replace(/[-_]/g, '');
  return normalized === 'key' || secretName.test(normalized);
}

/**
 * A copy of a log record with the value of every secret field replaced, at any depth, in objects,
 * arrays and errors (an error becomes pino's serialized form, with its own fields such as a
 * request's config and headers). Cycles become "[Circular]".
 */
export function redactSecrets(value: unknown, path: readonly object[] = []): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (path.includes(value)) return '[Circular]';
  const inner = [...path, value];
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, inner));
  // pino's serialized error has its own prototype; its enumerable fields are what gets written.
  if (value instanceof Error) return redactSecrets({ ...stdSerializers.err(value) }, path);
  if (!isPlainObject(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(value)) copy[name] = isSecretName(name) && field !== undefined ? redactedValue : redactSecrets(field, inner);
  return copy;
}

/** Class instances (Date, Buffer, URL) keep their own JSON form. */
function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}
