import { createHash, randomBytes } from 'node:crypto';
import { createPasswordUser, signIn } from './sign-in.js';
import { formField, PageClient, type PageResponse } from './page-client.js';
import type { TestResponse, TestServer } from './test-server.js';

export interface RegisteredApplication {
  id: string;
  client_id: string;
  client_secret?: string;
  redirect_uris: string[];
  scopes: string[];
}

/** Registers an application through the API with an admin's personal token (which has the `api_keys` scope). */
export async function registerApplication(server: TestServer, adminKey: string, body: Record<string, unknown>): Promise<RegisteredApplication> {
  const response = await server.request('POST', '/v1/oauth/applications', { key: adminKey, body });
  if (response.status !== 201) throw new Error(`registration failed: ${response.status} ${response.text}`);
  return response.body as RegisteredApplication;
}

export interface Pkce {
  verifier: string;
  challenge: string;
}

export function newPkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** A signed-in browser, without a browser: it asks the authorization endpoint and answers the consent form. */
export class OAuthBrowser {
  private constructor(
    readonly client: PageClient,
    readonly userId: string,
    readonly email: string,
  ) {}

  static async signIn(server: TestServer, orgId: string, role: 'owner' | 'admin' | 'member' | 'viewer' = 'member'): Promise<OAuthBrowser> {
    const { userId, email } = await createPasswordUser(server.services, orgId, role, server.clock.now);
    const session = await signIn(server, email);
    const client = new PageClient(server.url);
    client.cookies.set('dbmon_session', session.token);
    return new OAuthBrowser(client, userId, email);
  }

  authorizeUrl(parameters: Record<string, string>): string {
    return `/oauth/authorize?${new URLSearchParams(parameters)}`;
  }

  /** GET /oauth/authorize; when the consent page shows, answers it with `decision`. */
  async authorize(parameters: Record<string, string>, decision: 'approve' | 'deny' = 'approve'): Promise<PageResponse> {
    const page = await this.client.get(this.authorizeUrl(parameters));
    if (page.status !== 200) return page;
    const fields: Record<string, string> = { decision };
    for (const match of page.text.matchAll(/<input type="hidden" name="([a-z_]+)" value="([^"]*)"/g)) fields[match[1]!] = decodeHtml(match[2]!);
    if (formField(page.text, 'csrf_token') === undefined) throw new Error('no consent form');
    return this.client.postForm('/oauth/authorize', fields);
  }

  /** Authorizes and returns the code from the redirect. */
  async code(parameters: Record<string, string>): Promise<string> {
    const answer = await this.authorize(parameters);
    const code = answer.location === null ? null : new URL(answer.location).searchParams.get('code');
    if (code === null) throw new Error(`no code: ${answer.status} ${answer.location ?? answer.text.slice(0, 300)}`);
    return code;
  }
}

function decodeHtml(text: string): string {
  return text.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&#x27;|&#39;/g, "'");
}

/** POST to a form endpoint (token, revoke), its answer checked against the OpenAPI document like every other. */
export function postForm(server: TestServer, path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<TestResponse> {
  return server.request('POST', path, {
    rawBody: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });
}

export function basicAuth(clientId: string, secret: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}` };
}

/** The secret with its last character changed: to x, or to y when it already ends in x (one secret in 62). */
export function wrongSecretOf(secret: string): string {
  return `${secret.slice(0, -1)}${secret.endsWith('x') ? 'y' : 'x'}`;
}
