import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inflateRawSync } from 'node:zlib';
import { encodeResponse, responseXml, signAssertion, type IdpKey } from './saml-identity-provider.js';

export interface SamlIdpServer {
  /** Its SSO address (HTTP-Redirect binding in, HTTP-POST binding out). */
  ssoUrl: string;
  origin: string;
  close: () => Promise<void>;
}

const page = (title: string, body: string) =>
  `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;

/**
 * A local identity provider for browser tests: its SSO page asks who to sign in as, then answers the
 * AuthnRequest with an assertion signed by `key`, through an HTML form the person sends to the ACS.
 */
export async function startSamlIdp(key: IdpKey, entityId: string, roles: string[] = []): Promise<SamlIdpServer> {
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://idp.invalid');
    response.setHeader('content-type', 'text/html; charset=utf-8');
    if (request.method === 'GET' && url.pathname === '/sso') {
      const authnRequest = inflateRawSync(Buffer.from(url.searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
      const attribute = (name: string) => new RegExp(`\\s${name}="([^"]+)"`).exec(authnRequest)?.[1] ?? '';
      const issuer = /<saml:Issuer[^>]*>([^<]+)</.exec(authnRequest)?.[1] ?? '';
      const fields = [
        ['request_id', attribute('ID')],
        ['acs', attribute('AssertionConsumerServiceURL')],
        ['audience', issuer],
      ];
      response.end(
        page(
          'Test identity provider',
          `<form method="post" action="/sso">${fields.map(([name, value]) => `<input type="hidden" name="${name}" value="${value}">`).join('')}` +
            '<label for="email">Sign in as</label> <input id="email" name="email" type="email"> <button type="submit">Continue</button></form>',
        ),
      );
      return;
    }
    if (request.method === 'POST' && url.pathname === '/sso') {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        const form = new URLSearchParams(body);
        const acs = form.get('acs') ?? '';
        const xml = responseXml({ issuer: entityId, audience: form.get('audience') ?? '', recipient: acs, destination: acs, inResponseTo: form.get('request_id'), email: form.get('email') ?? '', roles });
        response.end(
          page(
            'Test identity provider',
            `<form method="post" action="${acs}"><input type="hidden" name="SAMLResponse" value="${encodeResponse(signAssertion(xml, key))}"><button type="submit">Send to dbmon</button></form>`,
          ),
        );
      });
      return;
    }
    response.statusCode = 404;
    response.end(page('Not found', ''));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { ssoUrl: `${origin}/sso`, origin, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
