import { getHttpOperationsFromSpec } from '@stoplight/prism-http';
// Prism exports its router and validators only from dist/; this is the function its validation proxy runs on every response.
import { validateOutput } from '@stoplight/prism-http/dist/validator/index.js';

type Operation = Awaited<ReturnType<typeof getHttpOperationsFromSpec>>[number];

export interface ReceivedResponse {
  status: number;
  headers: Headers;
  /** The parsed JSON body, or the text when the body is not JSON; undefined when empty. */
  body: unknown;
}

/** A response the served OpenAPI document does not describe: an unlisted status, another content type, a body off its schema. */
export class OpenApiMismatchError extends Error {
  override name = 'OpenApiMismatchError';
}

/** Operations by document text: every test server of a process serves the same document, and reading one takes a second. */
const operationsByDocument = new Map<string, Promise<Operation[]>>();

/**
 * Checks responses against the OpenAPI document the server itself serves (`/v1/openapi.json`),
 * with Stoplight Prism's response validator: an implementation independent of the zod schemas
 * the document is generated from. Requests to a method and path the document has no operation
 * for (an unknown route, a method the route lacks) are not checked.
 */
export async function openApiResponseChecker(baseUrl: string): Promise<(method: string, path: string, response: ReceivedResponse) => void> {
  const text = await (await fetch(`${baseUrl}/v1/openapi.json`)).text();
  let loading = operationsByDocument.get(text);
  if (loading === undefined) {
    loading = getHttpOperationsFromSpec(JSON.parse(text) as object);
    operationsByDocument.set(text, loading);
  }
  const operations = await loading;
  return (method, path, response) => {
    const pathname = new URL(path, baseUrl).pathname;
    const operation = operations.find((candidate) => candidate.method === method.toLowerCase() && templateMatches(candidate.path, pathname));
    if (operation === undefined) return;
    const result = validateOutput({
      resource: operation,
      element: { statusCode: response.status, headers: Object.fromEntries(response.headers), body: response.body },
    });
    if (result._tag === 'Left') {
      const problems = result.left.map((diagnostic) => `  - ${diagnostic.message}`).join('\n');
      throw new OpenApiMismatchError(`${method} ${path} answered ${response.status}, which the OpenAPI document (operation ${operation.iid}) does not describe:\n${problems}`);
    }
  };
}

function templateMatches(template: string, pathname: string): boolean {
  const pattern = template.split(/\{[^}]+\}/).map((literal) => literal.replace(/[.*+?^$()|[\]\\]/g, '\\$&')).join('[^/]+');
  return new RegExp(`^${pattern}$`).test(pathname);
}
