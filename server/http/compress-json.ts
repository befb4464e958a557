import type { Middleware } from 'koa';
import { chosenEncoding, compressionFloorBytes, compressPerRequest } from './content-encoding.js';

/**
 * Sends JSON answers (the API's, errors included) compressed when the client accepts it and the body
 * is worth it. HTML pages are left alone: they carry the CSRF token beside text a request can put
 * there, which compression would let a watcher of sizes guess (BREACH); no JSON answer to a GET holds a secret.
 */
export function compressJson(): Middleware {
  return async (ctx, next) => {
    await next();
    if (!ctx.response.is('json')) return;
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
