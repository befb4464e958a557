import type Router from '@koa/router';
import type { Context } from 'koa';
import type { z } from 'zod';
import type { Principal } from '../auth/principal.js';
import { requirePrincipal, type AccessRequirement, type AuthResult } from './authenticate.js';
import { compiledBodyParser } from './compiled-body.js';
import { parseInput } from './validate.js';

type ObjectSchema = z.ZodObject;

export interface RouteResponse {
  description: string;
  schema?: z.ZodType;
  /** The media type of the body; application/json unless said. */
  contentType?: string;
  headers?: Record<string, string>;
}

/** One endpoint: its chain, its schemas and its handler. The same definition serves routing and the OpenAPI document. */
export interface RouteDefinition<
  P extends ObjectSchema | undefined = ObjectSchema | undefined,
  Q extends ObjectSchema | undefined = ObjectSchema | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  A extends AccessRequirement | 'public' = AccessRequirement | 'public',
> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI form from the server root: `/v1/databases/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  /** Longer OpenAPI text: the decisions behind the endpoint that the summary has no room for. */
  description?: string;
  tag: string;
  auth: A;
  params?: P;
  /** Its parse must depend on the query string alone (no clock, no state): a parsed query is kept by its query string (queryParser). */
  query?: Q;
  body?: B;
  /**
   * A url-encoded body (the OAuth endpoints): documented, accepted instead of JSON on this path, and
   * handed to the handler unparsed in `ctx.request.body`, since such an endpoint answers faults in its
   * own format (RFC 6749 §5.2).
   */
  form?: z.ZodObject;
  /**
   * The endpoint applies its own limits (brute-force ones, whatever the plan) and sends the
   * X-RateLimit-* headers itself: the plan's hourly limit does not count its requests.
   */
  ownRateLimit?: true;
  /** Check the body with compiledBodyParser (a hot route whose body schema has no defaults or transforms). */
  compiledBody?: true;
  responses: Record<number, RouteResponse>;
  handler: (ctx: Context, input: RouteInput<P, Q, B, A>) => unknown;
}

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface RouteInput<P, Q, B, A> {
  params: Parsed<P>;
  query: Parsed<Q>;
  body: Parsed<B>;
  principal: A extends 'public' ? undefined : Principal;
}

export function defineRoute<
  P extends ObjectSchema | undefined = undefined,
  Q extends ObjectSchema | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  A extends AccessRequirement | 'public' = AccessRequirement,
>(definition: RouteDefinition<P, Q, B, A>): RouteDefinition {
  return definition as unknown as RouteDefinition;
}

export function mountRoutes(router: Router, routes: readonly RouteDefinition[]): void {
  for (const route of routes) router[route.method](route.operationId, koaPath(route), routeMiddleware(route));
}

/** The route's path as @koa/router writes it: `/v1/databases/:id`. */
function koaPath(route: RouteDefinition): string {
  return route.path.replace(/\{(\w+)\}/g, ':$1');
}

/** The route's chain once its path and method matched: the credential check, the input parsed, the handler. */
export function routeMiddleware(route: RouteDefinition): (ctx: Context) => Promise<void> {
  const { body } = route;
  const parseQuery = route.query === undefined ? undefined : queryParser(route.query);
  const parseBody =
    body === undefined ? undefined : route.compiledBody ? compiledBodyParser(body) : (input: unknown) => parseInput(body, input);
  return async (ctx) => {
    const principal =
      route.auth === 'public' ? undefined : requirePrincipal(ctx.state.auth as AuthResult | undefined, route.auth);
    const input = {
      params: route.params === undefined ? undefined : parseInput(route.params, ctx.params),
      query: parseQuery?.(ctx.querystring, () => ctx.query),
      body: parseBody?.(ctx.request.body ?? {}),
      principal,
    };
    await route.handler(ctx, input as RouteInput<unknown, unknown, unknown, AccessRequirement>);
  };
}

/** Parsed queries kept per schema; at this many the memory starts over rather than tracking recency. */
const maxParsedQueries = 100;

/**
 * A route's query parse, kept by query string: Koa's parse of the string and zod's of its values cost
 * more than the rest of a cached list request's handler. Only a parse of plain values is kept, and each
 * request gets its own copy, so a handler that changes its input changes no one else's. A query that
 * is refused is parsed (and refused) again each time.
 */
function queryParser(schema: ObjectSchema): (queryString: string, query: () => unknown) => unknown {
  const parsed = new Map<string, Record<string, unknown>>();
  return (queryString, query) => {
    const kept = parsed.get(queryString);
    if (kept !== undefined) return { ...kept };
    const value = parseInput(schema, query()) as Record<string, unknown>;
    if (Object.values(value).every((field) => field === null || typeof field !== 'object')) {
      if (parsed.size >= maxParsedQueries) parsed.clear();
      parsed.set(queryString, { ...value });
    }
    return value;
  };
}
