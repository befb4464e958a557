// What every client library covers, decided in one place: the document's /v1 operations, and which
// of them are lists a client pages through.
export const apiPrefix = '/v1';
const httpMethods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/** Each /v1 operation, in the document's order: its path under the base URL (which ends in /v1), its method in capitals. */
export function v1Operations(document) {
  const operations = [];
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.startsWith(`${apiPrefix}/`)) continue;
    for (const [method, operation] of Object.entries(item)) {
      if (httpMethods.includes(method)) operations.push({ path: path.slice(apiPrefix.length), method: method.toUpperCase(), operation });
    }
  }
  return operations;
}

/** A list operation: `page` and `per_page` query parameters, and a `data` array in its successful answer. */
export function isListOperation(operation, schemas = {}) {
  const queryNames = (operation.parameters ?? []).filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name);
  if (!queryNames.includes('page') || !queryNames.includes('per_page')) return false;
  const success = Object.entries(operation.responses ?? {}).find(([status]) => status.startsWith('2'));
  const schema = resolved(success?.[1].content?.['application/json']?.schema, schemas);
  return resolved(schema?.properties?.data, schemas)?.type === 'array';
}

function resolved(schema, schemas) {
  const prefix = '#/components/schemas/';
  return schema?.$ref?.startsWith(prefix) ? schemas[schema.$ref.slice(prefix.length)] : schema;
}
