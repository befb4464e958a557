// The Python client's generated half: TypedDict models of the document's schemas and one method per
// `/v1` operation, written to clients/python/dbmon/_generated.py (see generate.js).

import { apiPrefix, isListOperation, v1Operations } from './v1-operations.js';

const output = 'clients/python/dbmon/_generated.py';
const pythonKeywords = new Set(['and', 'as', 'assert', 'async', 'await', 'break', 'class', 'continue', 'def', 'del', 'elif', 'else', 'except', 'False', 'finally', 'for', 'from', 'global', 'if', 'import', 'in', 'is', 'lambda', 'None', 'nonlocal', 'not', 'or', 'pass', 'raise', 'return', 'True', 'try', 'while', 'with', 'yield']);

/** `listDatabases` → `list_databases`; `createOAuthApplication` → `create_oauth_application`. */
export function snakeCase(operationId) {
  return operationId.replace(/OAuth/g, 'Oauth').replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

/** A parameter name Python accepts: `from` → `from_`. */
export function pythonParameterName(name) {
  const snake = name.replace(/[^A-Za-z0-9_]/g, '_');
  return pythonKeywords.has(snake) ? `${snake}_` : snake;
}

function pascalCase(name) {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part !== '')
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('');
}

function pythonString(text) {
  return JSON.stringify(text);
}

function pythonLiteral(value) {
  if (value === null) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  return JSON.stringify(value);
}

/** Emits each TypedDict once, after the ones it refers to, so the module needs no forward references. */
class ModelWriter {
  constructor(schemas) {
    this.schemas = schemas;
    this.emitted = new Set();
    this.inProgress = new Set();
    this.blocks = [];
  }

  /** The Python type of a schema; `name` names the TypedDict an inline object becomes. */
  typeOf(schema, name) {
    if (schema === undefined || schema === true || Object.keys(schema).length === 0) return 'Any';
    if (schema.$ref !== undefined) return this.named(schema.$ref.replace('#/components/schemas/', ''));
    const variants = schema.anyOf ?? schema.oneOf;
    if (variants !== undefined) return union(variants.map((variant, index) => this.typeOf(variant, `${name}${index + 1}`)));
    if (schema.enum !== undefined) return `Literal[${schema.enum.map(pythonLiteral).join(', ')}]`;
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    return union(types.map((type) => this.#typeOfKind(type, schema, name)));
  }

  named(name) {
    if (!this.emitted.has(name) && !this.inProgress.has(name)) this.#emitObject(name, this.schemas[name], this.schemas[name].description);
    return this.inProgress.has(name) ? pythonString(name) : name;
  }

  #typeOfKind(type, schema, name) {
    switch (type) {
      case 'string':
        return 'str';
      case 'integer':
        return 'int';
      case 'number':
        return 'float';
      case 'boolean':
        return 'bool';
      case 'null':
        return 'None';
      case 'array':
        return `List[${this.typeOf(schema.items, `${name}Item`)}]`;
      case 'object':
        if (schema.properties === undefined) return `Dict[str, ${this.typeOf(schema.additionalProperties, `${name}Value`)}]`;
        this.#emitObject(name, schema, schema.description);
        return name;
      default:
        return 'Any';
    }
  }

  #emitObject(name, schema, description) {
    if (schema.properties === undefined) {
      this.inProgress.add(name);
      const alias = this.typeOf(schema, `${name}Value`);
      this.inProgress.delete(name);
      this.emitted.add(name);
      this.blocks.push(`${name} = ${alias}`);
      return;
    }
    this.inProgress.add(name);
    const required = new Set(schema.required ?? []);
    const fields = Object.entries(schema.properties).map(([property, propertySchema]) => ({
      property,
      type: this.typeOf(propertySchema, `${name}${pascalCase(property)}`),
      required: required.has(property),
    }));
    this.inProgress.delete(name);
    this.emitted.add(name);
    this.blocks.push(typedDict(name, fields, description));
  }
}

function union(types) {
  const distinct = [...new Set(types)];
  const withoutNone = distinct.filter((type) => type !== 'None');
  if (withoutNone.length === 0) return 'None';
  const inner = withoutNone.length === 1 ? withoutNone[0] : `Union[${withoutNone.join(', ')}]`;
  return withoutNone.length < distinct.length ? `Optional[${inner}]` : inner;
}

/**
 * Python 3.9 has no NotRequired: a model with both kinds of key is a class over two functional
 * TypedDicts, the required keys' (total) and the optional keys' (total=False). The functional form
 * also takes keys that are Python keywords (`from`).
 */
function typedDict(name, fields, description) {
  const doc = description === undefined ? '' : `    ${pythonString(description)}\n`;
  const keys = (subset) => `{${subset.map((field) => `${pythonString(field.property)}: ${field.type}`).join(', ')}}`;
  const required = fields.filter((field) => field.required);
  const optional = fields.filter((field) => !field.required);
  if (optional.length === 0 || required.length === 0) {
    const total = required.length === 0 && fields.length > 0 ? ', total=False' : '';
    const definition = `${name} = TypedDict(${pythonString(name)}, ${keys(fields)}${total})`;
    return description === undefined ? definition : `${definition}\n${name}.__doc__ = ${pythonString(description)}`;
  }
  return [
    `_${name}Required = TypedDict(${pythonString(`_${name}Required`)}, ${keys(required)})`,
    `_${name}Optional = TypedDict(${pythonString(`_${name}Optional`)}, ${keys(optional)}, total=False)`,
    '',
    '',
    `class ${name}(_${name}Required, _${name}Optional):\n${doc}    pass`,
  ].join('\n');
}

function successResponseSchema(operation) {
  const success = Object.entries(operation.responses).find(([status]) => status.startsWith('2'));
  return success?.[1].content?.['application/json']?.schema;
}

function methodOf({ path, method, operation }, models) {
  const name = snakeCase(operation.operationId);
  const typeName = pascalCase(operation.operationId);
  const parameters = operation.parameters ?? [];
  const pathParameters = parameters.filter((parameter) => parameter.in === 'path');
  const queryParameters = parameters.filter((parameter) => parameter.in === 'query');
  const signature = ['self'];
  for (const parameter of pathParameters) {
    signature.push(`${pythonParameterName(parameter.name)}: ${models.typeOf(parameter.schema, `${typeName}${pascalCase(parameter.name)}`)}`);
  }
  const call = [pythonString(method), pythonString(path)];
  if (pathParameters.length > 0) {
    call.push(`path_parameters={${pathParameters.map((parameter) => `${pythonString(parameter.name)}: ${pythonParameterName(parameter.name)}`).join(', ')}}`);
  }
  const content = operation.requestBody?.content ?? {};
  const [mediaType] = Object.keys(content);
  if (mediaType !== undefined) {
    const bodyType = models.typeOf(content[mediaType].schema, `${typeName}Body`);
    signature.push(operation.requestBody.required ? `body: ${bodyType}` : `body: Optional[${bodyType}] = None`);
    call.push(mediaType === 'application/x-www-form-urlencoded' ? 'form=body' : 'json=body');
  }
  if (queryParameters.length > 0) {
    signature.push('*');
    for (const parameter of queryParameters) {
      const type = models.typeOf(parameter.schema, `${typeName}${pascalCase(parameter.name)}`);
      signature.push(`${pythonParameterName(parameter.name)}: Optional[${type}] = None`);
    }
    call.push(`query={${queryParameters.map((parameter) => `${pythonString(parameter.name)}: ${pythonParameterName(parameter.name)}`).join(', ')}}`);
  }
  const responseSchema = successResponseSchema(operation);
  const returns = responseSchema === undefined ? 'None' : models.typeOf(responseSchema, `${typeName}Response`);
  const summary = `${operation.summary ?? operation.operationId} (${method} ${apiPrefix}${path}).`;
  const lines = [
    `    def ${name}(${signature.join(', ')}) -> ${returns}:`,
    `        ${pythonString(summary)}`,
    `        return self._call(${call.join(', ')})  # type: ignore[no-any-return]`,
  ];
  return { name, code: lines.join('\n'), isList: isListOperation(operation, models.schemas) };
}

/** The document's webhooks: each event type and the Python type of its payload. */
function webhookEvents(document, models) {
  return Object.entries(document.webhooks ?? {}).map(([type, item]) => ({
    type,
    model: models.typeOf(item.post.requestBody.content['application/json'].schema, `${pascalCase(type)}Event`),
  }));
}

/** Nothing for a document without webhooks. */
function webhookEventsBlock(events) {
  if (events.length === 0) return [];
  return [
    '#: A webhook delivery\'s payload, one TypedDict per event type: narrow it on ``event["type"]``.',
    `WebhookEvent = Union[${events.map((event) => event.model).join(', ')}]`,
    '',
    '#: The payload TypedDict of each event type.',
    `WEBHOOK_EVENTS: Mapping[str, Any] = {\n${events.map((event) => `    ${pythonString(event.type)}: ${event.model},`).join('\n')}\n}`,
    '',
    '',
  ];
}

/** The generator generate.js runs: `(document) => { 'clients/python/dbmon/_generated.py': source }`. */
export async function generatePython(document) {
  const schemas = document.components?.schemas ?? {};
  const models = new ModelWriter(schemas);
  for (const name of Object.keys(schemas)) models.named(name);
  const methods = v1Operations(document).map((operation) => methodOf(operation, models));
  const events = webhookEvents(document, models);
  const listOperations = methods.filter((method) => method.isList).map((method) => `    ${pythonString(method.name)},`);
  const source = [
    '# Generated by scripts/clients/generate-python.js from the OpenAPI document the server serves; do not edit.',
    '# Regenerate with `npm run clients:generate`.',
    '"""Models and operations of the dbmon API."""',
    'from typing import Any, Dict, FrozenSet, List, Literal, Mapping, Optional, TypedDict, Union',
    '',
    '',
    models.blocks.join('\n\n\n'),
    '',
    '',
    ...webhookEventsBlock(events),
    '#: The list operations: `Client.paginate` iterates over their pages.',
    `LIST_OPERATIONS: FrozenSet[str] = frozenset({\n${listOperations.join('\n')}\n})`,
    '',
    '',
    'class Operations:',
    `    """Every ${apiPrefix} operation of the document, one method each (named from its operationId)."""`,
    '',
    '    def _call(self, method: str, path: str, *, path_parameters: Optional[Mapping[str, Any]] = None, query: Optional[Mapping[str, Any]] = None, json: Any = None, form: Optional[Mapping[str, Any]] = None) -> Any:',
    '        raise NotImplementedError',
    '',
    methods.map((method) => method.code).join('\n\n'),
    '',
  ].join('\n');
  return { [output]: source };
}
