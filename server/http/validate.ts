import type { z } from 'zod';
import { InvalidRequestError } from '../errors.js';

/** Parses one part of a request; the first problem becomes a 400 naming the parameter. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, prefix = ''): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') {
    const param = [prefix, ...path, issue.keys[0]!].filter(Boolean).join('.');
    throw new InvalidRequestError('unknown_parameter', `Unknown parameter: ${param}`, param);
  }
  const param = [prefix, ...path].filter(Boolean).join('.');
  if (valueAt(input, issue.path) === undefined) {
    throw new InvalidRequestError('missing_required_parameter', `Missing required parameter: ${param}`, param || undefined);
  }
  throw new InvalidRequestError('invalid_parameter', `Invalid ${param || 'request body'}: ${issue.message}`, param || undefined);
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  return path.reduce<unknown>(
    (node, key) => (typeof node === 'object' && node !== null ? (node as Record<PropertyKey, unknown>)[key] : undefined),
    input,
  );
}
