import { DOMParser } from '@xmldom/xmldom';
import { clockSkewMs } from './saml-service-provider.js';

const assertionNamespace = 'urn:oasis:names:tc:SAML:2.0:assertion';
const protocolNamespace = 'urn:oasis:names:tc:SAML:2.0:protocol';
const bearer = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';

/** Why a response is refused: node-saml's refusal (`invalid_response`), ours, SAML not enabled (but for a test), or no account to sign in. */
export type SamlRefusal =
  | 'invalid_response'
  | 'unknown_user'
  | 'not_enabled'
  | 'wrong_destination'
  | 'wrong_issuer'
  | 'wrong_recipient'
  | 'subject_confirmation_expired'
  | 'subject_confirmation_not_yet_valid'
  | 'in_response_to_mismatch'
  | 'unsolicited_response'
  | 'unknown_request'
  | 'replayed_assertion'
  | 'malformed_assertion';

export class SamlRefusedError extends Error {
  constructor(readonly reason: SamlRefusal) {
    super(`SAML response refused: ${reason}`);
  }
}

/** What the checks learnt of an acceptable assertion. */
export interface CheckedAssertion {
  assertionId: string;
  /** The request this answers (signed, in the bearer confirmation); null for an identity-provider-initiated response. */
  inResponseTo: string | null;
  /** Until when a replay must be recognized. */
  expiresAt: Date;
}

export interface ExpectedResponse {
  acsUrl: string;
  idpEntityId: string;
  now: Date;
}

/**
 * The checks of a signed response that node-saml does not make: the Response's Destination, the
 * assertion's Issuer, a bearer SubjectConfirmationData whose Recipient is our ACS and whose times hold
 * (60 s of skew), and the request it answers. Reads the assertion only as signed.
 */
export function checkSignedResponse(responseXml: string, assertionXml: string, expected: ExpectedResponse): CheckedAssertion {
  const response = parse(responseXml);
  const assertion = parse(assertionXml);
  if (response.localName !== 'Response' || response.namespaceURI !== protocolNamespace) throw new SamlRefusedError('malformed_assertion');
  if (assertion.localName !== 'Assertion' || assertion.namespaceURI !== assertionNamespace) throw new SamlRefusedError('malformed_assertion');
  if (response.getAttribute('Destination') !== expected.acsUrl) throw new SamlRefusedError('wrong_destination');
  const issuers = [...children(response, assertionNamespace, 'Issuer'), ...children(assertion, assertionNamespace, 'Issuer')];
  if (children(assertion, assertionNamespace, 'Issuer').length !== 1 || issuers.some((issuer) => issuer.textContent?.trim() !== expected.idpEntityId)) {
    throw new SamlRefusedError('wrong_issuer');
  }
  const assertionId = assertion.getAttribute('ID') ?? '';
  if (assertionId === '') throw new SamlRefusedError('malformed_assertion');

  const confirmation = bearerConfirmation(assertion, expected);
  const inResponseTo = confirmation.getAttribute('InResponseTo') || null;
  const responseInResponseTo = response.getAttribute('InResponseTo') || null;
  if (responseInResponseTo !== null && responseInResponseTo !== inResponseTo) throw new SamlRefusedError('in_response_to_mismatch');
  const conditions = children(assertion, assertionNamespace, 'Conditions')[0];
  const lastValid = [confirmation.getAttribute('NotOnOrAfter'), conditions?.getAttribute('NotOnOrAfter')]
    .filter((value): value is string => value !== null && value !== '')
    .map((value) => Date.parse(value));
  return { assertionId, inResponseTo, expiresAt: new Date(Math.max(...lastValid) + clockSkewMs) };
}

/** The bearer confirmation addressed to our ACS and valid now; the refusal says what the first candidate lacked. */
function bearerConfirmation(assertion: Element, expected: ExpectedResponse): Element {
  const subject = children(assertion, assertionNamespace, 'Subject')[0];
  const candidates = subject === undefined ? [] : children(subject, assertionNamespace, 'SubjectConfirmation').filter((item) => item.getAttribute('Method') === bearer);
  let refusal: SamlRefusal = 'malformed_assertion';
  for (const candidate of candidates) {
    const data = children(candidate, assertionNamespace, 'SubjectConfirmationData')[0];
    if (data === undefined) continue;
    const notOnOrAfter = Date.parse(data.getAttribute('NotOnOrAfter') ?? '');
    const notBefore = data.getAttribute('NotBefore');
    const now = expected.now.getTime();
    if (data.getAttribute('Recipient') !== expected.acsUrl) refusal = 'wrong_recipient';
    else if (Number.isNaN(notOnOrAfter)) refusal = 'malformed_assertion';
    else if (now >= notOnOrAfter + clockSkewMs) refusal = 'subject_confirmation_expired';
    else if (notBefore !== null && notBefore !== '' && now < Date.parse(notBefore) - clockSkewMs) refusal = 'subject_confirmation_not_yet_valid';
    else return data;
  }
  throw new SamlRefusedError(refusal);
}

function parse(xml: string): Element {
  const element = new DOMParser().parseFromString(xml, 'text/xml').documentElement;
  if (element === null) throw new SamlRefusedError('malformed_assertion');
  return element;
}

function children(parent: Element, namespace: string, localName: string): Element[] {
  return Array.from(parent.childNodes).filter(
    (node): node is Element => node.nodeType === node.ELEMENT_NODE && (node as Element).localName === localName && (node as Element).namespaceURI === namespace,
  );
}
