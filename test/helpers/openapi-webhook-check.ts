import type { IncomingHttpHeaders } from 'node:http';
import { getHttpOperationsFromSpec } from '@stoplight/prism-http';
// Prism exports its validators only from dist/; this is the function its validation proxy runs on every request.
import { validateInput } from '@stoplight/prism-http/dist/validator/index.js';

export interface DeliveredRequest {
  headers: IncomingHttpHeaders;
  /** The body exactly as received. */
  body: string;
}

/**
 * Checks webhook deliveries against the `webhooks` of the OpenAPI document the server serves, with
 * Stoplight Prism's request validator (independent of the zod schemas the document is made of).
 * Prism reads only `paths`, so each webhook is handed to it as the POST operation of a path named
 * after the event type. Throws when the delivery's type has no webhook or the delivery (headers,
 * body) is not what the document says.
 */
export async function openApiWebhookChecker(baseUrl: string): Promise<(delivery: DeliveredRequest) => void> {
  const document = (await (await fetch(`${baseUrl}/v1/openapi.json`)).json()) as { webhooks: Record<string, object> };
  const asPaths = Object.fromEntries(Object.entries(document.webhooks).map(([type, item]) => [`/${type}`, item]));
  const operations = await getHttpOperationsFromSpec({ ...document, webhooks: {}, paths: asPaths });
  return (delivery) => {
    const body = JSON.parse(delivery.body) as { type?: unknown };
    const operation = operations.find((candidate) => candidate.path === `/${String(body.type)}`);
    if (operation === undefined) throw new Error(`the OpenAPI document has no webhook for event type ${String(body.type)}`);
    const headers = Object.fromEntries(Object.entries(delivery.headers).map(([name, value]) => [name, String(value)]));
    const result = validateInput({ resource: operation, element: { method: 'post', url: { path: operation.path }, headers, body } });
    if (result._tag === 'Left') {
      const problems = result.left.map((diagnostic) => `  - ${diagnostic.path?.join('.') ?? ''} ${diagnostic.message}`).join('\n');
      throw new Error(`a ${String(body.type)} delivery is not what the OpenAPI document's webhook describes:\n${problems}`);
    }
  };
}
