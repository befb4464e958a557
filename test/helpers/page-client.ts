/** A page's answer as a browser's network layer sees it: redirects are not followed. */
export interface PageResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The redirect target, when there is one. */
  location: string | null;
}

/**
 * Talks to the pages as a browser would, without one: keeps the cookies the server sets (name=value,
 * as sent back), posts forms url-encoded, never follows redirects. Tests read and plant cookies directly.
 */
export class PageClient {
  readonly cookies = new Map<string, string>();

  constructor(private readonly baseUrl: string) {}

  get(path: string, headers: Record<string, string> = {}): Promise<PageResponse> {
    return this.send('GET', path, undefined, headers);
  }

  postForm(path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<PageResponse> {
    return this.send('POST', path, new URLSearchParams(fields).toString(), { 'content-type': 'application/x-www-form-urlencoded', ...headers });
  }

  async send(method: string, path: string, body: string | undefined, headers: Record<string, string> = {}): Promise<PageResponse> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      redirect: 'manual',
      headers: { accept: 'text/html', ...(cookie !== '' && { cookie }), ...headers },
      ...(body !== undefined && { body }),
    });
    for (const setCookie of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = setCookie.split(';').map((part) => part.trim());
      const split = pair.indexOf('=');
      const name = pair.slice(0, split);
      if (attributes.some((attribute) => attribute.toLowerCase() === 'max-age=0')) this.cookies.delete(name);
      else this.cookies.set(name, pair.slice(split + 1));
    }
    return { status: response.status, headers: response.headers, text: await response.text(), location: response.headers.get('location') };
  }
}

/** The value of a form field in a page's HTML (`name` before `value`, as the templates write them). */
export function formField(html: string, name: string): string | undefined {
  const match = new RegExp(`<input[^>]*\\bname="${name}"[^>]*\\bvalue="([^"]*)"`).exec(html);
  return match?.[1];
}
