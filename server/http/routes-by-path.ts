import Router from '@koa/router';
import type { Middleware } from 'koa';
import { mountRoutes, type RouteDefinition } from './route.js';

// Exact paths only: a route that also answered /V1/... or /v1/x/ would be reached around the /v1 middleware.
const routerOptions = { sensitive: true, strict: true };

/**
 * The routes as one middleware: a router's dispatch, then its answer to a method the path does not
 * allow (405 with Allow, OPTIONS, 501). @koa/router tests every route's pattern against every request
 * (about 80 of them); here a path that a route without parameters names is looked up in a map and
 * handed to a router of only the routes that match it, and any other path to a router of the routes
 * with parameters. Each request meets the routes that match it, in the same order, as it would in
 * one router of them all.
 */
export function routesByPath(routes: readonly RouteDefinition[]): Middleware {
  const all = new Router(routerOptions);
  mountRoutes(all, routes);
  const layers = routes.map((route) => {
    const layer = all.route(route.operationId);
    if (layer === false) throw new Error(`route ${route.operationId} was not mounted`);
    return layer;
  });
  const exactPaths = new Set(layers.filter((layer) => layer.paramNames.length === 0).map((layer) => String(layer.path)));
  const byPath = new Map<string, Middleware>();
  for (const path of exactPaths) byPath.set(path, dispatch(routes.filter((_, i) => layers[i]!.match(path))));
  const withParameters = dispatch(routes.filter((_, i) => layers[i]!.paramNames.length > 0));
  return (ctx, next) => (byPath.get(ctx.path) ?? withParameters)(ctx, next);
}

function dispatch(routes: readonly RouteDefinition[]): Middleware {
  const router = new Router(routerOptions);
  mountRoutes(router, routes);
  const dispatchRoute = router.routes() as Middleware;
  const allowedMethods = router.allowedMethods() as Middleware;
  return (ctx, next) => dispatchRoute(ctx, () => allowedMethods(ctx, next));
}
