import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { ApiError, InvalidRequestError } from '../errors.js';

type ClientErrorListener = (error: NodeJS.ErrnoException, socket: Socket) => void;

/**
 * The HTTP server's `clientError` listener: a request Node's parser refused (headers over the size
 * limit, a garbled request line, a malformed chunked body, a header timeout) never reaches Koa, so it
 * is answered here with the contract's error body and a request id, and logged as JSON. As in Node's
 * own handler, nothing is written once a response on that socket has begun.
 */
export function clientErrorListener(logger: Logger): ClientErrorListener {
  return (error, socket) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    // Node's own handler reads the in-flight response the same way; a request already in Koa keeps its id.
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;
    const ownId = inFlight?.getHeader('x-request-id');
    const requestId = typeof ownId === 'string' ? ownId : randomUUID();
    const refusal = refusalFor(error.code);
    logger.info({ requestId, status: refusal.status, parserCode: error.code, reason: error.message }, 'malformed HTTP request refused');
    if (inFlight?.headersSent === true) {
      socket.destroy();
      return;
    }
    const body = JSON.stringify(refusal.toBody());
    const head = [
      `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? ''}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      `X-Request-Id: ${requestId}`,
      'Connection: close',
    ].join('\r\n');
    socket.end(`${head}\r\n\r\n${body}`, () => socket.destroy());
  };
}

function refusalFor(code: string | undefined): ApiError {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return new ApiError(431, 'invalid_request', 'The request line and headers are larger than the server accepts (16 KiB)', 'headers_too_large');
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new ApiError(408, 'invalid_request', 'The request was not received in time', 'request_timeout');
  }
  return new InvalidRequestError('malformed_request', 'The request is not well-formed HTTP');
}
