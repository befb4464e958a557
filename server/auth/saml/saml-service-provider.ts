import { generateServiceProviderMetadata, SAML, ValidateInResponseTo } from '@node-saml/node-saml';
import type { SamlAddresses } from './saml-addresses.js';
import type { SamlConfiguration } from './saml-configuration.js';

/** How far the identity provider's clock may be from ours. */
export const clockSkewMs = 60_000;

/** An assertion whose signature, wrapping, Conditions times and Audience node-saml accepted. */
export interface SignedResponse {
  /** The assertion whose signature verified, as signed. */
  assertionXml: string;
  /** The whole response as received (its outer Response element is not covered by the assertion's signature). */
  responseXml: string;
  nameId: string;
  /** The assertion's attributes by name: one value or several. */
  attributes: Record<string, unknown>;
}

/**
 * The service provider side of SAML 2.0, through node-saml: AuthnRequests (HTTP-Redirect), metadata, and the
 * signature, Conditions and Audience checks of a response (HTTP-POST). InResponseTo, Issuer, Destination,
 * Recipient and replays are checked by saml-response-checks.ts, which node-saml leaves to us or does only in memory.
 */
export class SamlServiceProvider {
  /** The identity provider's address with a deflated, encoded AuthnRequest whose ID is `requestId`. */
  async authorizeUrl(configuration: SamlConfiguration, addresses: SamlAddresses, requestId: string): Promise<string> {
    return this.#saml(configuration, addresses, requestId).getAuthorizeUrlAsync('', undefined, {});
  }

  metadata(addresses: SamlAddresses): string {
    return generateServiceProviderMetadata({ issuer: addresses.sp_entity_id, callbackUrl: addresses.acs_url, wantAssertionsSigned: true });
  }

  /** Throws when node-saml refuses the response: an unsigned or wrongly signed assertion, a wrapped signature, a time or audience out of bounds. */
  async verify(configuration: SamlConfiguration, addresses: SamlAddresses, samlResponse: string): Promise<SignedResponse> {
    const { profile } = await this.#saml(configuration, addresses).validatePostResponseAsync({ SAMLResponse: samlResponse });
    if (profile?.getAssertionXml === undefined || profile.getSamlResponseXml === undefined) throw new Error('The response holds no assertion');
    return {
      assertionXml: profile.getAssertionXml(),
      responseXml: profile.getSamlResponseXml(),
      nameId: profile.nameID,
      attributes: (profile.attributes ?? {}) as Record<string, unknown>,
    };
  }

  #saml(configuration: SamlConfiguration, addresses: SamlAddresses, requestId?: string): SAML {
    return new SAML({
      entryPoint: configuration.idpSsoUrl,
      idpCert: configuration.idpCertificate,
      issuer: addresses.sp_entity_id,
      audience: addresses.sp_entity_id,
      callbackUrl: addresses.acs_url,
      wantAssertionsSigned: true,
      // Identity providers commonly sign the assertion alone; that signature is the one required.
      wantAuthnResponseSigned: false,
      acceptedClockSkewMs: clockSkewMs,
      // Request ids are kept in SQLite and taken once by saml-response-checks.ts.
      validateInResponseTo: ValidateInResponseTo.never,
      identifierFormat: null,
      disableRequestedAuthnContext: true,
      ...(requestId !== undefined && { generateUniqueId: () => requestId }),
    });
  }
}
