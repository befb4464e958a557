import { DbmonError } from './errors.js';
import { operations, type OperationMethods } from './generated/operations.js';
import type { OperationArguments, OperationId, OperationItem, OperationSpec, PaginatedOperationId } from './operation-types.js';
import { nextLink } from './pagination.js';
import { operationUrl, outgoingBody, type Parameters } from './request.js';
import { Transport, type RateLimit } from './transport.js';

export interface ClientOptions {
  /** An API key (`dbm_pat_...`, `dbm_sak_...`); default: the DBMON_API_KEY environment variable. */
  apiKey?: string;
  /** An OAuth access token, used when there is no API key; default: DBMON_ACCESS_TOKEN. */
  accessToken?: string;
  /** The API's base URL, ending in /v1; default: DBMON_BASE_URL, else http://127.0.0.1:7117/v1. */
  baseUrl?: string;
  /** Retries after a first failed attempt (default 2). */
  maxRetries?: number;
  /** A 429's Retry-After longer than this many seconds (default 60) throws the RateLimitError at once. */
  maxRetryWaitSeconds?: number;
  /** Milliseconds one attempt may take (default 60,000). */
  timeoutMs?: number;
}

/** An async iterator over every item of a list operation, across its pages. */
export type Paginators = { [K in PaginatedOperationId]: (...args: OperationArguments<K>) => AsyncGenerator<OperationItem<K>, void> };

const defaultBaseUrl = 'http://127.0.0.1:7117/v1';

class Client {
  readonly baseUrl: string;
  /** `client.paginate.listDatabases({ per_page: 50 })`: every database, page after page. */
  readonly paginate: Paginators;
  #transport: Transport;

  constructor(options: ClientOptions = {}) {
    const environment = process.env;
    this.baseUrl = (options.baseUrl ?? environment.DBMON_BASE_URL ?? defaultBaseUrl).replace(/\/+$/, '');
    const credential = options.apiKey ?? options.accessToken ?? environment.DBMON_API_KEY ?? environment.DBMON_ACCESS_TOKEN;
    const policy = { maxRetries: options.maxRetries ?? 2, maxRetryWaitSeconds: options.maxRetryWaitSeconds ?? 60 };
    this.#transport = new Transport(credential, policy, options.timeoutMs ?? 60_000);
    const paginated = Object.entries(operations).filter(([, spec]) => spec.paginated);
    this.paginate = Object.fromEntries(paginated.map(([id, spec]) => [id, (parameters?: Parameters) => this.#items(spec, parameters ?? {})])) as unknown as Paginators;
  }

  /** The X-RateLimit-* values of the last answer, or undefined before the first. */
  get rateLimit(): RateLimit | undefined {
    return this.#transport.rateLimit;
  }

  async call(spec: OperationSpec, parameters: Parameters = {}): Promise<unknown> {
    return (await this.#transport.send(spec.method, operationUrl(this.baseUrl, spec, parameters), outgoingBody(spec, parameters))).data;
  }

  async *#items(spec: OperationSpec, parameters: Parameters): AsyncGenerator<unknown, void> {
    let answer = await this.#transport.send(spec.method, operationUrl(this.baseUrl, spec, parameters));
    for (;;) {
      yield* (answer.data as { data: unknown[] }).data;
      const next = nextLink(answer.headers.get('link'));
      if (next === undefined) return;
      const url = new URL(next, this.baseUrl);
      // The credential goes only where the client was pointed.
      if (url.origin !== new URL(this.baseUrl).origin) throw new DbmonError(`the next page is on another origin (${url.origin}); not following it`);
      answer = await this.#transport.send('GET', url);
    }
  }
}

for (const [id, spec] of Object.entries(operations) as Array<[OperationId, OperationSpec]>) {
  Object.defineProperty(Client.prototype, id, {
    value(this: Client, parameters?: Parameters) {
      return this.call(spec, parameters);
    },
  });
}

/** The dbmon API: one method per /v1 operation, named by its operationId (`listDatabases`, `createDatabase`, ...). */
export interface DbmonClient extends Client, OperationMethods {}
export const DbmonClient = Client as new (options?: ClientOptions) => DbmonClient;
