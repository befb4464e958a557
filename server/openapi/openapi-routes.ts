import { z } from 'zod';
import { defineRoute, type RouteDefinition } from '../http/route.js';

/** Serves the document built from `routes`, itself included; built once, on first request. */
export function openApiRoutes(build: (routes: readonly RouteDefinition[]) => object, others: readonly RouteDefinition[]): RouteDefinition[] {
  let document: object | undefined;
  const self = defineRoute({
    method: 'get',
    path: '/v1/openapi.json',
    operationId: 'openApiDocument',
    summary: 'This OpenAPI 3.1 document',
    tag: 'Meta',
    auth: 'public',
    responses: { 200: { description: 'The document', schema: z.looseObject({ openapi: z.string() }) } },
    handler: (ctx) => {
      document ??= build([...others, self]);
      ctx.body = document;
    },
  });
  return [self];
}
