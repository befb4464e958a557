import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ProviderEndpoints } from '../../server/auth/providers/provider-endpoints.js';

/** An account at a fake provider: who approves the sign-in. */
export interface FakeAccount {
  subject: string;
  email: string;
  emailVerified: boolean;
  /** Microsoft: the verification as Entra says it, in the optional claim xms_edov instead of email_verified. */
  entraDomainVerified?: boolean;
}

/** What the provider does unlike a honest one, for the attack tests. */
export interface FakeApproval {
  /** The ID token carries this nonce instead of the one asked for; null: no nonce at all. */
  nonce?: string | null;
}

type Flavor = 'github' | 'gitlab' | 'google' | 'microsoft';

interface IssuedCode {
  flavor: Flavor;
  issuer: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  nonce: string | null | undefined;
  account: FakeAccount;
}

/** Local stand-ins for GitHub, GitLab, Google and Microsoft Entra, each checking requests as the real one does. */
export interface FakeIdentityProviders {
  /** ProviderEndpoints for a server that talks to these fakes. */
  endpoints: ProviderEndpoints;
  /** The GitLab instance's base URL (the organization's `base_url`). */
  gitlabUrl: string;
  /** The OAuth clients the providers know: client id to secret. */
  clients: Map<string, string>;
  /** Token requests answered, by outcome, in order (for tests that count them). */
  tokenRequests: string[];
  /** OpenID configuration documents served. */
  discoveries: number;
  /** The account signed in at the provider when a real browser reaches its authorization endpoint: it approves at once. */
  browserAccount: FakeAccount | undefined;
  /**
   * The provider's authorization endpoint, as the browser reaches it: the request is checked (known
   * client, S256 challenge) and `account` approves it. Answers the redirect back, with code and state.
   */
  approve(authorizationUrl: string, account: FakeAccount, approval?: FakeApproval): string;
  close(): Promise<void>;
}

const microsoftTenant = /^\/microsoft\/([^/]+)\/v2\.0/;

export async function startFakeIdentityProviders(): Promise<FakeIdentityProviders> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyId = randomBytes(8).toString('hex');
  const codes = new Map<string, IssuedCode>();
  const accessTokens = new Map<string, IssuedCode>();
  const server: Server = createServer((request, response) => {
    void answer(request, response).catch((error: unknown) => json(response, 500, { error: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const fake: FakeIdentityProviders = {
    endpoints: {
      github: { webUrl: `${url}/github`, apiUrl: `${url}/github-api` },
      googleIssuer: `${url}/google`,
      microsoftAuthority: `${url}/microsoft`,
      allowInsecureRequests: true,
    },
    gitlabUrl: `${url}/gitlab`,
    clients: new Map(),
    tokenRequests: [],
    discoveries: 0,
    browserAccount: undefined,
    approve(authorizationUrl, account, approval = {}) {
      const request = new URL(authorizationUrl);
      const path = request.pathname;
      const flavor: Flavor | undefined =
        path === '/github/login/oauth/authorize' ? 'github'
        : path === '/gitlab/oauth/authorize' ? 'gitlab'
        : path === '/google/authorize' ? 'google'
        : microsoftTenant.test(path) && path.endsWith('/authorize') ? 'microsoft'
        : undefined;
      if (flavor === undefined) throw new Error(`no fake authorization endpoint at ${path}`);
      const parameter = (name: string) => {
        const value = request.searchParams.get(name);
        if (value === null) throw new Error(`the authorization request has no ${name}`);
        return value;
      };
      if (parameter('response_type') !== 'code') throw new Error('response_type must be code');
      if (!fake.clients.has(parameter('client_id'))) throw new Error('unknown client');
      if (parameter('code_challenge_method') !== 'S256') throw new Error('PKCE S256 expected');
      const oidc = flavor === 'google' || flavor === 'microsoft';
      if (oidc && !parameter('scope').split(' ').includes('openid')) throw new Error('openid scope expected');
      const code = randomBytes(16).toString('hex');
      codes.set(code, {
        flavor,
        issuer: issuerOf(flavor, path),
        clientId: parameter('client_id'),
        redirectUri: parameter('redirect_uri'),
        codeChallenge: parameter('code_challenge'),
        nonce: approval.nonce !== undefined ? approval.nonce : oidc ? parameter('nonce') : undefined,
        account,
      });
      const back = new URL(parameter('redirect_uri'));
      back.searchParams.set('code', code);
      back.searchParams.set('state', parameter('state'));
      return back.toString();
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  function issuerOf(flavor: Flavor, path: string): string {
    if (flavor === 'microsoft') return `${url}/microsoft/${microsoftTenant.exec(path)![1]}/v2.0`;
    if (flavor === 'github') return fake.endpoints.github.webUrl;
    return flavor === 'gitlab' ? fake.gitlabUrl : fake.endpoints.googleIssuer;
  }

  async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url!, url).pathname;
    if (request.method === 'GET' && fake.browserAccount !== undefined && path.endsWith('/authorize')) {
      response.writeHead(302, { location: fake.approve(`${url}${request.url!}`, fake.browserAccount) });
      return void response.end();
    }
    const oidcBase = path.startsWith('/google/') ? `${url}/google` : microsoftTenant.test(path) ? `${url}${microsoftTenant.exec(path)![0]}` : undefined;
    if (request.method === 'GET' && oidcBase !== undefined && path === `${new URL(oidcBase).pathname}/.well-known/openid-configuration`) {
      fake.discoveries++;
      return json(response, 200, {
        issuer: oidcBase,
        authorization_endpoint: `${oidcBase}/authorize`,
        token_endpoint: `${oidcBase}/token`,
        jwks_uri: `${oidcBase}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
      });
    }
    if (request.method === 'GET' && oidcBase !== undefined && path.endsWith('/jwks')) {
      return json(response, 200, { keys: [{ ...publicKey.export({ format: 'jwk' }), kid: keyId, alg: 'RS256', use: 'sig' }] });
    }
    if (request.method === 'POST' && (path === '/github/login/oauth/access_token' || path === '/gitlab/oauth/token' || (oidcBase !== undefined && path.endsWith('/token')))) {
      return token(request, response, path.startsWith('/github/'));
    }
    const issued = accessTokens.get((request.headers.authorization ?? '').replace(/^Bearer /, ''));
    if (request.method === 'GET' && path.startsWith('/github-api/') && issued?.flavor === 'github') {
      if (request.headers['user-agent'] === undefined) return json(response, 403, { message: 'User-Agent required' });
      if (path === '/github-api/user') return json(response, 200, { id: Number(issued.account.subject), login: `user${issued.account.subject}` });
      if (path === '/github-api/user/emails') {
        return json(response, 200, [
          { email: `noreply-${issued.account.subject}@users.noreply.example`, primary: false, verified: true },
          { email: issued.account.email, primary: true, verified: issued.account.emailVerified },
        ]);
      }
    }
    if (request.method === 'GET' && path === '/gitlab/oauth/userinfo' && issued?.flavor === 'gitlab') {
      return json(response, 200, { sub: issued.account.subject, email: issued.account.email, email_verified: issued.account.emailVerified });
    }
    json(response, issued === undefined ? 401 : 404, { error: 'not found' });
  }

  /** The token endpoint: client authentication (Basic or the form), a known unused code, its redirect URI and PKCE verifier. GitHub answers refusals with 200. */
  async function token(request: IncomingMessage, response: ServerResponse, github: boolean): Promise<void> {
    const form = new URLSearchParams(await readBody(request));
    const basic = /^Basic (.+)$/.exec(request.headers.authorization ?? '');
    const [clientId, clientSecret] = basic ? Buffer.from(basic[1]!, 'base64').toString().split(':') : [form.get('client_id'), form.get('client_secret')];
    const refuse = (status: number, error: string) => {
      fake.tokenRequests.push(error);
      return json(response, github ? 200 : status, { error });
    };
    if (clientId == null || fake.clients.get(clientId) !== clientSecret) return refuse(401, github ? 'incorrect_client_credentials' : 'invalid_client');
    const code = codes.get(form.get('code') ?? '');
    codes.delete(form.get('code') ?? '');
    const verifier = form.get('code_verifier') ?? '';
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    if (code === undefined || code.clientId !== clientId || code.redirectUri !== form.get('redirect_uri') || code.codeChallenge !== challenge) {
      return refuse(400, github ? 'bad_verification_code' : 'invalid_grant');
    }
    const accessToken = randomBytes(16).toString('hex');
    accessTokens.set(accessToken, code);
    fake.tokenRequests.push('issued');
    const oidc = code.flavor === 'google' || code.flavor === 'microsoft';
    json(response, 200, { access_token: accessToken, token_type: 'Bearer', expires_in: 3600, scope: 'openid email', ...(oidc && { id_token: idToken(code) }) });
  }

  function idToken(code: IssuedCode): string {
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      iss: code.issuer,
      aud: code.clientId,
      sub: code.account.subject,
      email: code.account.email,
      ...(code.account.entraDomainVerified === undefined ? { email_verified: code.account.emailVerified } : { xms_edov: code.account.entraDomainVerified }),
      ...(code.nonce !== null && { nonce: code.nonce }),
      iat: now,
      exp: now + 600,
    };
    const encode = (part: object) => Buffer.from(JSON.stringify(part)).toString('base64url');
    const signingInput = `${encode({ alg: 'RS256', typ: 'JWT', kid: keyId })}.${encode(claims)}`;
    return `${signingInput}.${sign('sha256', Buffer.from(signingInput), privateKey).toString('base64url')}`;
  }

  return fake;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}
