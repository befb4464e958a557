import { request as httpRequest, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import { agentErrorBody } from '../../common/agent-protocol/error-codes.js';
import { agentHostnameHeader, agentUserAgent } from '../../common/agent-protocol/identity-headers.js';
import { RetryableError } from './delivery-errors.js';

/** Where the agent's server is, and who the agent is to it. */
export interface AgentServerConnection {
  /** Base address of the dbmon server, e.g. `https://dbmon.example.com` (no `/v1`). */
  serverUrl: string;
  /** A service-account key with the `agent` scope (and write permission, to report job results). */
  agentKey: string;
  /** Sent as `User-Agent: dbmon-agent/<version>`. */
  version: string;
  /** Sent as `X-Dbmon-Agent-Hostname`. */
  hostname: string;
  /** Deadline of one request, response body included. */
  timeoutMs: number;
}

/** The answer's headers by case-insensitive name, as `Headers.get` gives them. */
export interface ResponseHeaders {
  get(name: string): string | null;
}

export interface AgentResponse {
  status: number;
  headers: ResponseHeaders;
  /** The body parsed as JSON; undefined when it is empty or not JSON. */
  body: unknown;
  text: string;
}

/**
 * One request of the agent protocol, with the agent's headers and a deadline. A network failure or
 * a timeout is a RetryableError; every status comes back for the caller to judge. The key lives in
 * a private field and appears in no message. Sent with node:http(s), not fetch: fetch loads undici,
 * about 8 MiB of resident memory in a process that makes a request or two a minute.
 */
export class AgentHttpClient {
  readonly #connection: AgentServerConnection;

  constructor(connection: AgentServerConnection) {
    this.#connection = { ...connection, serverUrl: connection.serverUrl.replace(/\/+$/, '') };
  }

  async request(method: string, path: string, body: string | undefined, signal?: AbortSignal): Promise<AgentResponse> {
    const { serverUrl, agentKey, version, hostname, timeoutMs } = this.#connection;
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      const headers: OutgoingHttpHeaders = {
        authorization: `Bearer ${agentKey}`,
        'user-agent': agentUserAgent(version),
        [agentHostnameHeader]: hostname,
        accept: 'application/json',
        ...(body !== undefined && { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }),
      };
      const combined = signal === undefined ? timeout : AbortSignal.any([timeout, signal]);
      const response = await send(new URL(`${serverUrl}${path}`), method, headers, body, combined);
      return { status: response.status, headers: headerReader(response.headers), body: parseJson(response.text), text: response.text };
    } catch (error) {
      throw new RetryableError(`${method} ${path}: ${describeNetworkError(error, timeout, timeoutMs)}`);
    }
  }
}

/** One request and its whole answer as text; rejects on a network error, an abort, or an answer cut short. */
async function send(
  url: URL,
  method: string,
  headers: OutgoingHttpHeaders,
  body: string | undefined,
  signal: AbortSignal,
): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  // node:https (with tls) is loaded only for an https:// server, about 1 MiB resident otherwise unused.
  const request = url.protocol === 'https:' ? (await import('node:https')).request : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method, headers, signal }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('close', () => {
        if (!response.complete) reject(new Error('the answer was cut short'));
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

function headerReader(headers: IncomingHttpHeaders): ResponseHeaders {
  return {
    get(name) {
      const value = headers[name.toLowerCase()];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(', ') : value;
    },
  };
}

/** `METHOD path: status type (code): message`, or the start of whatever else the answer held. */
export function describeFailure(method: string, path: string, response: AgentResponse): string {
  const parsed = agentErrorBody.safeParse(response.body);
  if (parsed.success) {
    const { type, code, message } = parsed.data.error;
    return `${method} ${path}: ${response.status} ${type}${code === undefined ? '' : ` (${code})`}: ${message}`;
  }
  return `${method} ${path}: ${response.status} ${response.text.length === 0 ? '(empty body)' : response.text.slice(0, 200)}`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** OpenSSL's verification failures and node's host name check, as node codes them. */
const certificateRefusal = /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)/;

function describeNetworkError(error: unknown, timeout: AbortSignal, timeoutMs: number): string {
  if (timeout.aborted) return `no answer within ${timeoutMs} ms`;
  if (error instanceof Error) {
    const own = (error as { code?: unknown }).code;
    if (typeof own === 'string' && certificateRefusal.test(own)) {
      return `the server's TLS certificate was refused (${own}: ${error.message}); a private CA is trusted with NODE_EXTRA_CA_CERTS`;
    }
    if (typeof own === 'string' && error.name !== 'AbortError') return `cannot reach the server (${own})`;
    const cause = (error as { cause?: unknown }).cause;
    const code = typeof cause === 'object' && cause !== null ? (cause as { code?: unknown }).code : undefined;
    if (typeof code === 'string') return `cannot reach the server (${code})`;
    if (cause instanceof Error) return `cannot reach the server (${cause.message})`;
    return error.message;
  }
  return String(error);
}
