import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';
import type { DestinationGuard } from './destination-guard.js';
import { hostOf } from './destination-guard.js';

export interface OutgoingWebhook {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface SendOutcome {
  /** The HTTP status, or null when no answer came (refused, timed out, destination refused). */
  responseCode: number | null;
  error: string | null;
  /** Retry-After of the answer, in milliseconds from now. */
  retryAfterMs: number | undefined;
  durationMs: number;
}

/** Bytes of a receiver's answer read before the connection is dropped; the body is never stored. */
const maxResponseBytes = 64 * 1024;

/**
 * One POST of a webhook: the destination is checked first (and again by the lookup given to
 * http.request, so the connection goes to the checked address), redirects are not followed, and
 * the whole exchange is cut after `timeoutMs`. Never rejects: every failure becomes an outcome.
 */
export async function sendWebhook(webhook: OutgoingWebhook, guard: DestinationGuard, timeoutMs: number, nowMs: () => number): Promise<SendOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let url: URL;
  try {
    url = new URL(webhook.url);
    await guard.check(url);
  } catch (error) {
    return { responseCode: null, error: `destination refused: ${(error as Error).message}`, retryAfterMs: undefined, durationMs: elapsed() };
  }
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<SendOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: Omit<SendOutcome, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, durationMs: elapsed() });
    };
    const request = send(
      url,
      {
        method: 'POST',
        headers: { ...webhook.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(webhook.body) },
        lookup: guard.lookup,
        servername: hostOf(url),
        agent: false,
      },
      (response: IncomingMessage) => {
        const code = response.statusCode ?? 0;
        const retryAfterMs = parseRetryAfter(response.headers['retry-after'], nowMs());
        let received = 0;
        const done = () => finish({ responseCode: code, error: code >= 200 && code < 300 ? null : `HTTP ${code}`, retryAfterMs });
        response.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > maxResponseBytes) {
            done();
            response.destroy();
          }
        });
        response.on('end', done);
        response.on('error', done);
        response.on('close', done);
      },
    );
    const timer = setTimeout(() => {
      request.destroy(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => {
      const message = error instanceof Error ? error.message : String(error);
      finish({ responseCode: null, error: error.code === 'EDESTINATIONREFUSED' ? `destination refused: ${message}` : message, retryAfterMs: undefined });
    });
    request.end(webhook.body);
  });
}

/** Retry-After as delay-seconds or an HTTP date, in milliseconds from now; undefined when absent or unreadable. */
export function parseRetryAfter(header: string | undefined, nowMs: number): number | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
