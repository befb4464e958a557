import type { Context, Middleware } from 'koa';
import { chosenEncoding, compressionFloorBytes, compressPerRequest } from './content-encoding.js';

/** Media types whose answer to is('json') is kept; at this many the memory starts over. */
const maxKeptTypes = 100;

/**
 * Sends JSON answers (the API's, errors included) compressed when the client accepts it and the body
 * is worth it. HTML pages are left alone: they carry the CSRF token beside text a request can put
 * there, which compression would let a watcher of sizes guess (BREACH); no JSON answer to a GET holds a secret.
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
    if (!isJson(ctx)) return;
    ctx.vary('Accept-Encoding');
    const encoding = chosenEncoding(ctx);
    if (encoding === undefined) return;
    // A list's page comes serialized already (http/paging.ts); any other answer is an object Koa would serialize.
    const bytes = Buffer.isBuffer(ctx.body) ? ctx.body : Buffer.from(JSON.stringify(ctx.body));
    if (bytes.length < compressionFloorBytes) return;
    ctx.body = await compressPerRequest(bytes, encoding);
    ctx.set('Content-Encoding', encoding);
  };
}
