import type { operations as openApiOperations } from './generated/openapi.js';
import type { operations } from './generated/operations.js';

/** How one operation is called: what the generated table says of it. */
export interface OperationSpec {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE' | 'PATCH' | 'HEAD' | 'OPTIONS';
  /** Relative to the base URL, with `{name}` placeholders for path parameters. */
  path: string;
  body: 'json' | 'form' | undefined;
  /** A list operation (`page`, `per_page`, a `data` array): it has a paginator. */
  paginated: boolean;
}

export type OperationId = keyof typeof operations;
export type PaginatedOperationId = { [K in OperationId]: (typeof operations)[K]['paginated'] extends true ? K : never }[OperationId];

type Operation<K extends OperationId> = openApiOperations[K];
/** `{}` where the document declares nothing (openapi-typescript writes `never` there). */
type ObjectOrEmpty<T> = [NonNullable<T>] extends [never] ? object : NonNullable<T>;
type BodyPart<K extends OperationId> = [NonNullable<Operation<K>['requestBody']>] extends [never]
  ? object
  : NonNullable<Operation<K>['requestBody']> extends { content: infer Content }
    ? undefined extends Operation<K>['requestBody']
      ? { body?: Content[keyof Content] }
      : { body: Content[keyof Content] }
    : object;

/** An operation's parameters in one object: its path and query parameters by name, and `body`. */
export type OperationParameters<K extends OperationId> = ObjectOrEmpty<Operation<K>['parameters']['path']> &
  ObjectOrEmpty<Operation<K>['parameters']['query']> &
  BodyPart<K>;

/** The parameters object is optional when nothing in it is required. */
export type OperationArguments<K extends OperationId> = object extends OperationParameters<K> ? [parameters?: OperationParameters<K>] : [parameters: OperationParameters<K>];

type Content<Response> = Response extends { content: { 'application/json': infer Json } } ? Json : undefined;
/** What a successful answer carries (`undefined` for an empty one, like a 204). */
export type OperationResult<K extends OperationId> = { [Status in keyof Operation<K>['responses']]: Content<Operation<K>['responses'][Status]> }[keyof Operation<K>['responses']];

/** One element of a list operation's `data`. */
export type OperationItem<K extends PaginatedOperationId> = OperationResult<K> extends { data: Array<infer Item> } ? Item : never;
