import type { Context, Middleware } from 'koa';
import { chosenEncoding, compressionFloorBytes, compressPerRequest } from './content-encoding.js';

/** Media types whose answer to is('json') is kept; at this many the memory starts over. */
const maxKeptTypes = 100;

/**
 * Sends answers to GET and HEAD in JSON (errors included) compressed when the client accepts it and the
 * body is worth it. Compressing a secret beside text the request put there lets a watcher of sizes guess
 * the secret (BREACH): answers to other methods may carry one shown once (a new API key, an OAuth token,
 * a webhook's signing secret), and HTML pages carry the CSRF token, so both are sent as is; no JSON
 * answer to a GET holds a secret.
 */
export function compressJson(): Middleware {
  const jsonTypes = new Map<string, boolean>();
  /** ctx.response.is('json'), kept by media type: type-is parses the type and looks `json` up on every call. */
  const isJson = (ctx: Context): boolean => {
    const { type } = ctx.response;
    let json = jsonTypes.get(type);
    if (json === undefined) {
      json = ctx.response.is('json') !== false;
      if (jsonTypes.size >= maxKeptTypes) jsonTypes.clear();
      jsonTypes.set(type, json);
    }
    return json;
  };
  return async (ctx, next) => {
    await next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return;
    if (!isJson(ctx)) return;
    // What vary() sets when there is no Vary yet, without its parse of both lists.
    if (ctx.res.hasHeader('Vary')) ctx.vary('Accept-Encoding');
    else ctx.set('Vary', 'Accept-Encoding');
    const encoding = chosenEncoding(ctx);
    if (encoding === undefined) return;
    // A list's page comes serialized already (http/paging.ts); any other answer is an object Koa would serialize.
    const bytes = Buffer.isBuffer(ctx.body) ? ctx.body : Buffer.from(JSON.stringify(ctx.body));
    if (bytes.length < compressionFloorBytes) return;
    ctx.body = await compressPerRequest(bytes, encoding);
    ctx.set('Content-Encoding', encoding);
  };
}
