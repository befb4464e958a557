import type { OperationSpec } from './operation-types.js';
import type { OutgoingBody } from './transport.js';

export type Parameters = Record<string, unknown> & { body?: unknown };

/** The URL of one call: path parameters filled in, every other parameter but `body` in the query. */
export function operationUrl(baseUrl: string, spec: OperationSpec, parameters: Parameters): URL {
  const named: Record<string, unknown> = { ...parameters };
  delete named.body;
  const path = spec.path.replace(/\{(\w+)\}/g, (_placeholder, name: string) => {
    const value = named[name];
    if (value === undefined || value === null || value === '') throw new TypeError(`the path parameter ${name} is required`);
    delete named[name];
    return encodeURIComponent(String(value));
  });
  const url = new URL(`${baseUrl}${path}`);
  for (const [name, value] of Object.entries(named)) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  return url;
}

/** The body of one call, as the operation takes it: JSON, or a form for the OAuth endpoints. */
export function outgoingBody(spec: OperationSpec, parameters: Parameters): OutgoingBody | undefined {
  if (spec.body === undefined || parameters.body === undefined) return undefined;
  if (spec.body === 'json') return { contentType: 'application/json', text: JSON.stringify(parameters.body) };
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters.body as Record<string, unknown>)) {
    if (value !== undefined) form.set(name, String(value));
  }
  return { contentType: 'application/x-www-form-urlencoded', text: form.toString() };
}
