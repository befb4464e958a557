import { generateKeyPairSync } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import forge from 'node-forge';
import { SignedXml } from 'xml-crypto';

/** A signing key of a test identity provider (made by node:crypto), with its self-signed certificate (node:crypto cannot make one: node-forge does). */
export interface IdpKey {
  certificatePem: string;
  privateKeyPem: string;
}

export function makeIdpKey(options: { bits?: number; notBefore?: Date; notAfter?: Date } = {}): IdpKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: options.bits ?? 2048 });
  const privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString());
  certificate.serialNumber = '01';
  certificate.validity.notBefore = options.notBefore ?? new Date(Date.now() - 86_400_000);
  certificate.validity.notAfter = options.notAfter ?? new Date(Date.now() + 365 * 86_400_000);
  const name = [{ name: 'commonName', value: 'Test identity provider' }];
  certificate.setSubject(name);
  certificate.setIssuer(name);
  certificate.sign(forge.pki.privateKeyFromPem(privateKeyPem), forge.md.sha256.create());
  return { certificatePem: forge.pki.certificateToPem(certificate), privateKeyPem };
}

export interface AssertionFields {
  issuer: string;
  audience: string;
  recipient: string;
  destination: string;
  /** The AuthnRequest answered; null for an IdP-initiated response. */
  inResponseTo: string | null;
  email: string;
  name?: string;
  roles?: string[];
  assertionId?: string;
  notBefore?: Date;
  notOnOrAfter?: Date;
}

/** The Response with one unsigned Assertion, as an identity provider writes it before signing. */
export function responseXml(fields: AssertionFields): string {
  const now = Date.now();
  const notBefore = (fields.notBefore ?? new Date(now - 30_000)).toISOString();
  const notOnOrAfter = (fields.notOnOrAfter ?? new Date(now + 5 * 60_000)).toISOString();
  const issueInstant = new Date(now).toISOString();
  const inResponseTo = fields.inResponseTo === null ? '' : ` InResponseTo="${fields.inResponseTo}"`;
  const attribute = (name: string, values: string[]) =>
    `<saml:Attribute Name="${name}">${values.map((value) => `<saml:AttributeValue>${value}</saml:AttributeValue>`).join('')}</saml:Attribute>`;
  return (
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_r${Math.random().toString(36).slice(2)}" Version="2.0" IssueInstant="${issueInstant}" Destination="${fields.destination}"${inResponseTo}>` +
    `<saml:Issuer>${fields.issuer}</saml:Issuer>` +
    '<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>' +
    `<saml:Assertion ID="${fields.assertionId ?? `_a${Math.random().toString(36).slice(2)}`}" Version="2.0" IssueInstant="${issueInstant}">` +
    `<saml:Issuer>${fields.issuer}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${fields.email}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData NotOnOrAfter="${notOnOrAfter}" Recipient="${fields.recipient}"${inResponseTo}/></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${notBefore}" NotOnOrAfter="${notOnOrAfter}"><saml:AudienceRestriction><saml:Audience>${fields.audience}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${issueInstant}" SessionIndex="_s1"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:Password</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    `<saml:AttributeStatement>${attribute('email', [fields.email])}${attribute('displayName', [fields.name ?? 'Test Person'])}${attribute('groups', fields.roles ?? [])}</saml:AttributeStatement>` +
    '</saml:Assertion></samlp:Response>'
  );
}

const assertionPath = "/*[local-name(.)='Response']/*[local-name(.)='Assertion']";

/** Signs the assertion (enveloped, exclusive c14n, RSA-SHA256), the signature placed after its Issuer as SAML requires. */
export function signAssertion(xml: string, key: IdpKey): string {
  const signer = new SignedXml({
    privateKey: key.privateKeyPem,
    publicCert: key.certificatePem,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  signer.addReference({
    xpath: assertionPath,
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
  });
  signer.computeSignature(xml, { location: { reference: `${assertionPath}/*[local-name(.)='Issuer']`, action: 'after' } });
  return signer.getSignedXml();
}

/** The form field value of the HTTP-POST binding. */
export function encodeResponse(xml: string): string {
  return Buffer.from(xml, 'utf8').toString('base64');
}

/** The ID of the AuthnRequest an HTTP-Redirect address carries (deflated, base64). */
export function requestIdOf(redirectUrl: string): string {
  const request = inflateRawSync(Buffer.from(new URL(redirectUrl).searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
  const id = /\sID="([^"]+)"/.exec(request)?.[1];
  if (id === undefined) throw new Error(`No request ID in ${request}`);
  return id;
}
