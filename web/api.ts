/** A /v1 answer other than 2xx, with the contract's error code; `retryAt` when the hourly budget is spent (429). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryAt?: Date,
  ) {
    super(message);
  }
}

const safeMethods = new Set(['GET', 'HEAD']);

/**
 * This page's /v1 calls so far, and what the last answer said of the hour's request budget
 * (X-RateLimit-Limit, -Remaining, -Reset), which the signed-in user's every tab and key share.
 */
export const apiBudget: { calls: number; limit?: number; remaining?: number; resetAt?: number } = { calls: 0 };

function noteBudget(headers: Headers): void {
  apiBudget.calls++;
  const [limit, remaining, reset] = ['limit', 'remaining', 'reset'].map((name) => headers.get(`x-ratelimit-${name}`));
  if (limit === null || remaining === null || reset === null) return;
  const resetAt = Number(reset) * 1000;
  // Answers to requests sent together can arrive in another order than the server counted them.
  const sameHour = resetAt === apiBudget.resetAt && apiBudget.remaining !== undefined;
  apiBudget.limit = Number(limit);
  apiBudget.remaining = sameHour ? Math.min(apiBudget.remaining!, Number(remaining)) : Number(remaining);
  apiBudget.resetAt = resetAt;
}

/**
 * Calls this server's own /v1 API as the signed-in user: the browser sends the session cookie, and
 * every unsafe call carries the page's CSRF token (`<meta name="csrf-token">`) in X-CSRF-Token.
 */
export async function callApi<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (!safeMethods.has(method)) headers['x-csrf-token'] = document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content ?? '';
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path, { method, headers, credentials: 'same-origin', ...(body !== undefined && { body: JSON.stringify(body) }) });
  noteBudget(response.headers);
  if (response.status === 204) return undefined as T;
  const answer = (await response.json().catch(() => undefined)) as { error?: { code?: string; message?: string; retry_after?: number } } | undefined;
  if (!response.ok) {
    const error = answer?.error;
    const retryAt = error?.retry_after === undefined ? undefined : new Date(error.retry_after * 1000);
    throw new ApiError(response.status, error?.code ?? 'unknown', error?.message ?? `HTTP ${response.status}`, retryAt);
  }
  return answer as T;
}

export const getJson = <T>(path: string): Promise<T> => callApi<T>('GET', path);

/** Every item of a paged /v1 list (100 a page). */
export async function getAll<T>(path: string): Promise<T[]> {
  const items: T[] = [];
  for (let page = 1; ; page++) {
    const separator = path.includes('?') ? '&' : '?';
    const answer = await getJson<{ data: T[]; pagination: { total: number } }>(`${path}${separator}per_page=100&page=${page}`);
    items.push(...answer.data);
    if (items.length >= answer.pagination.total || answer.data.length === 0) return items;
  }
}
