import { X509Certificate } from 'node:crypto';
import { InvalidRequestError } from '../../errors.js';

/** What the settings show of the identity provider's signing certificate. */
export interface CertificateSummary {
  subject: string;
  not_before: string;
  not_after: string;
  key_type: 'rsa' | 'ec';
  key_size: number;
  fingerprint_sha256: string;
}

const minimumRsaBits = 2048;
const acceptedCurves: Record<string, number> = { prime256v1: 256, secp384r1: 384, secp521r1: 521 };

/**
 * The PEM certificate the identity provider signs with, checked: one X.509 certificate, valid now,
 * whose key is RSA of 2048 bits or more or EC on P-256, P-384 or P-521. Throws 400 `invalid_parameter` otherwise.
 */
export function checkIdpCertificate(pem: string, now: Date): CertificateSummary {
  const refuse = (why: string) => new InvalidRequestError('invalid_parameter', `idp_certificate: ${why}`, 'idp_certificate');
  if ((pem.match(/-----BEGIN CERTIFICATE-----/g) ?? []).length !== 1) throw refuse('give exactly one PEM certificate');
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(pem);
  } catch {
    throw refuse('not a readable X.509 certificate');
  }
  const notBefore = new Date(certificate.validFrom);
  const notAfter = new Date(certificate.validTo);
  if (now < notBefore) throw refuse(`not valid before ${notBefore.toISOString()}`);
  if (now >= notAfter) throw refuse(`expired on ${notAfter.toISOString()}`);
  const key = certificate.publicKey;
  const details = key.asymmetricKeyDetails ?? {};
  let keySize: number;
  if (key.asymmetricKeyType === 'rsa') {
    keySize = details.modulusLength ?? 0;
    if (keySize < minimumRsaBits) throw refuse(`an RSA key of ${keySize} bits; at least ${minimumRsaBits} are needed`);
  } else if (key.asymmetricKeyType === 'ec') {
    keySize = acceptedCurves[details.namedCurve ?? ''] ?? 0;
    if (keySize === 0) throw refuse(`the curve ${details.namedCurve ?? 'unknown'} is not accepted; use P-256, P-384 or P-521`);
  } else {
    throw refuse(`a ${key.asymmetricKeyType ?? 'unknown'} key; RSA or EC is needed`);
  }
  return {
    subject: certificate.subject,
    not_before: notBefore.toISOString(),
    not_after: notAfter.toISOString(),
    key_type: key.asymmetricKeyType,
    key_size: keySize,
    fingerprint_sha256: certificate.fingerprint256,
  };
}
