import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { mountRoutes, routeMiddleware, type RouteDefinition } from './route.js';

// Exact paths only: a route that also answered /V1/... or /v1/x/ would be reached around the /v1 middleware.
const routerOptions = { sensitive: true, strict: true };

/**
 * The routes as one middleware: a router's dispatch, then its answer to a method the path does not
 * allow (405 with Allow, OPTIONS, 501). @koa/router tests every route's pattern against every request
 * (about 80 of them) and composes the matched chain anew each time; here a path that a route without
 * parameters names is looked up in a map. When the first route matching that path and method is
 * such a route, its chain runs at once; otherwise the request goes to a router of only the routes
 * that match the path, and any other path to a router of the routes with parameters. Each request
 * meets the routes that match it, in the same order, as it would in one router of them all.
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
  for (const path of exactPaths) {
    const matching = routes.flatMap((route, i) => (layers[i]!.match(path) ? [{ route, layer: layers[i]! }] : []));
    const direct = new Map<string, (ctx: Context) => Promise<void>>();
    for (const method of new Set(matching.flatMap(({ layer }) => layer.methods))) {
      const first = matching.find(({ layer }) => layer.methods.includes(method))!;
      if (first.layer.paramNames.length === 0) direct.set(method, answer(first.route, path));
    }
    const others = dispatch(matching.map(({ route }) => route));
    byPath.set(path, (ctx, next) => (direct.get(ctx.method) ?? others)(ctx, next));
  }
  const withParameters = dispatch(routes.filter((_, i) => layers[i]!.paramNames.length > 0));
  const middleware: Middleware = (ctx, next) => (byPath.get(ctx.path) ?? withParameters)(ctx, next);
  // Like the middleware of @koa/router, it carries its router: one of all the routes, to list what the app serves.
  return Object.assign(middleware, { router: all });
}

/** What the router does for a route without parameters that matched: no parameters, the route named for the logs, its chain. */
function answer(route: RouteDefinition, path: string): (ctx: Context) => Promise<void> {
  const chain = routeMiddleware(route);
  return (ctx) => {
    ctx.params = {};
    ctx._matchedRoute = path;
    return chain(ctx);
  };
}

function dispatch(routes: readonly RouteDefinition[]): Middleware {
  const router = new Router(routerOptions);
  mountRoutes(router, routes);
  const dispatchRoute = router.routes() as Middleware;
  const allowedMethods = router.allowedMethods() as Middleware;
  return (ctx, next) => dispatchRoute(ctx, () => allowedMethods(ctx, next));
}
