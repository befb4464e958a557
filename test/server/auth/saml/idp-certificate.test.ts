import t from 'tap';
import { checkIdpCertificate } from '../../../../server/auth/saml/idp-certificate.js';
import { InvalidRequestError } from '../../../../server/errors.js';
import { makeIdpKey } from '../../../helpers/saml-identity-provider.js';

const now = new Date();
const day = 86_400_000;

t.test('a valid RSA 2048 certificate is read: subject, validity, key and SHA-256 fingerprint', async (t) => {
  const { certificatePem } = makeIdpKey();
  t.match(checkIdpCertificate(certificatePem, now), {
    subject: 'CN=Test identity provider',
    key_type: 'rsa',
    key_size: 2048,
    fingerprint_sha256: /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/,
  });
});

t.test('refused: expired, not yet valid, a weak key, two certificates, not a certificate', async (t) => {
  const cases: [string, string, RegExp][] = [
    ['expired', makeIdpKey({ notBefore: new Date(now.getTime() - 10 * day), notAfter: new Date(now.getTime() - day) }).certificatePem, /expired on/],
    ['not yet valid', makeIdpKey({ notBefore: new Date(now.getTime() + day), notAfter: new Date(now.getTime() + 10 * day) }).certificatePem, /not valid before/],
    ['RSA 1024', makeIdpKey({ bits: 1024 }).certificatePem, /1024 bits/],
    ['two certificates', `${makeIdpKey().certificatePem}\n${makeIdpKey().certificatePem}`, /exactly one/],
    ['garbage', '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----', /not a readable/],
    ['a private key', makeIdpKey().privateKeyPem, /exactly one/],
  ];
  for (const [name, pem, message] of cases) {
    t.throws(() => checkIdpCertificate(pem, now), { constructor: InvalidRequestError, param: 'idp_certificate', message }, name);
  }
});
