import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync } from 'node:zlib';
import type { Context } from 'koa';

export type ContentEncoding = 'br' | 'gzip';

/** Below this many bytes a compressed answer saves less than its headers and the work cost. */
export const compressionFloorBytes = 1024;

/**
 * The encoding to answer `ctx` in: brotli when the client accepts it (q > 0), else gzip, else none.
 * The server picks among the accepted ones (browsers list gzip first, yet brotli is the smaller).
 */
export function chosenEncoding(ctx: Context): ContentEncoding | undefined {
  // No header accepts only identity: answered without the negotiation's parse.
  if (ctx.get('Accept-Encoding') === '') return undefined;
  if (ctx.acceptsEncodings('br') === 'br') return 'br';
  if (ctx.acceptsEncodings('gzip') === 'gzip') return 'gzip';
  return undefined;
}

const compressAsync = { br: promisify(brotliCompress), gzip: promisify(gzip) };

/**
 * Compresses an answer made for this request, off the event loop: brotli at quality 4 and gzip at
 * level 6, the settings that cost a few milliseconds for a few hundred kilobytes.
 */
export function compressPerRequest(body: Buffer, encoding: ContentEncoding): Promise<Buffer> {
  return encoding === 'br' ? compressAsync.br(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }) : compressAsync.gzip(body, { level: 6 });
}

/** Compresses a file served unchanged for good, once, at the smallest settings. */
export function compressOnce(body: Buffer): Record<ContentEncoding, Buffer> {
  return {
    br: brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
    gzip: gzipSync(body, { level: 9 }),
  };
}
