import { NotFoundError } from '../../errors.js';
import type { Transaction } from '../../storage/open-database.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { AuditOrigin } from '../audit/audit-origin.js';
import type { NewUser } from '../identity/identity-service.js';
import type { Organization } from '../identity/organization.js';
import type { User } from '../identity/user.js';
import type { SessionClient } from '../sessions/sessions-service.js';
import type { SignInOutcome } from '../sessions/sign-in-service.js';
import { randomBase62 } from '../../crypto/base62.js';
import { samlAddresses } from './saml-addresses.js';
import { mapAttributes, type MappedUser } from './saml-attributes.js';
import type { SamlConfiguration } from './saml-configuration.js';
import type { SamlRepository } from './saml-repository.js';
import { checkSignedResponse, SamlRefusedError, type SamlRefusal } from './saml-response-checks.js';
import type { SamlServiceProvider } from './saml-service-provider.js';
import type { SamlOrganizations, SamlSettingsService } from './saml-settings-service.js';

/** How long a sent AuthnRequest waits for its answer. */
export const samlRequestMs = 10 * 60_000;

/** The identity feature's users, as SAML finds and provisions them. */
export interface SamlUsers {
  findForSignIn(email: string): User | undefined;
  createUser(input: NewUser, now: Date): User;
}

/** The sessions feature's way in for a user whom an identity provider vouched for. */
export interface SsoSignIn {
  signInThroughIdentityProvider(user: User, client: SessionClient, via: string, providerSatisfiesSecondFactor: boolean, now: Date): SignInOutcome;
}

/** What a response led to: a test's result (nobody signed in), or a sign-in and the path its request asked to go to next. */
export type SamlOutcome = { kind: 'test'; user: MappedUser; existing: boolean } | { kind: 'sign_in'; outcome: SignInOutcome; next: string };

/**
 * SAML sign-in for an organization: starting one (an AuthnRequest whose id is kept to be answered once),
 * and the response at the ACS, which signs a user in, provisions one, or, for a test, only shows who it names.
 */
export class SamlSignIn {
  constructor(
    private readonly settings: SamlSettingsService,
    private readonly organizations: SamlOrganizations,
    private readonly repository: SamlRepository,
    private readonly serviceProvider: SamlServiceProvider,
    private readonly users: SamlUsers,
    private readonly sessions: SsoSignIn,
    private readonly audit: AuditLog,
    private readonly transaction: Transaction,
    private readonly publicUrl: string,
  ) {}

  /** The organization this slug names, when it has SAML enabled; 404 otherwise. */
  enabledOrganization(slug: string): Organization {
    const organization = this.organizations.findBySlug(slug);
    if (organization === undefined || this.settings.configuration(organization.id)?.enabled !== true) throw new NotFoundError('No SAML sign-in here');
    return organization;
  }

  /** Whether the organization with this slug signs in through SAML (the login page's SSO entry). */
  offersSso(slug: string): boolean {
    const organization = this.organizations.findBySlug(slug);
    return organization !== undefined && this.settings.configuration(organization.id)?.enabled === true;
  }

  /** Our service provider metadata for the organization with this slug (configured or not: an identity provider may want it first). */
  metadata(slug: string): string {
    const organization = this.organizations.findBySlug(slug);
    if (organization === undefined) throw new NotFoundError('No such organization');
    return this.serviceProvider.metadata(samlAddresses(this.publicUrl, organization.slug));
  }

  /** The identity provider's address for a sign-in of this organization's members, who go to `next` (a path of ours) once signed in. */
  async start(slug: string, next: string, now: Date): Promise<string> {
    return this.#request(this.enabledOrganization(slug), false, next, now);
  }

  /** A test round trip of the saved configuration, enabled or not: its answer shows the mapped user and marks the configuration tested. */
  async startTest(origin: AuditOrigin, now: Date): Promise<string> {
    return this.#request(this.settings.organization(origin.orgId), true, '/', now);
  }

  async #request(organization: Organization, test: boolean, next: string, now: Date): Promise<string> {
    const configuration = this.#configuration(organization);
    // An xs:ID must not start with a digit.
    const id = `_${randomBase62(32)}`;
    this.repository.insertRequest({ id, org_id: organization.id, test: test ? 1 : 0, next, expires_at: new Date(now.getTime() + samlRequestMs).toISOString() });
    return this.serviceProvider.authorizeUrl(configuration, samlAddresses(this.publicUrl, organization.slug), id);
  }

  /**
   * A response posted to the ACS. Throws SamlRefusedError (audited) for any response that is not signed by the
   * configured identity provider, addressed to us, valid now, an answer to a request of ours (unless
   * IdP-initiated sign-in is allowed) and new.
   */
  async finish(slug: string, samlResponse: string, client: SessionClient, now: Date): Promise<SamlOutcome> {
    const organization = this.organizations.findBySlug(slug);
    const configuration = organization === undefined ? undefined : this.settings.configuration(organization.id);
    if (organization === undefined || configuration === undefined) throw new NotFoundError('No SAML sign-in here');
    const addresses = samlAddresses(this.publicUrl, organization.slug);
    // Nobody proved who they are until a session starts.
    const origin: AuditOrigin = { orgId: organization.id, actor: null, credential: null, ip: client.ip, userAgent: client.userAgent };
    const refuse = (reason: SamlRefusal) => {
      this.audit.record({ origin, action: 'saml.response_refused', details: { reason } }, now);
      return new SamlRefusedError(reason);
    };
    let signed;
    try {
      signed = await this.serviceProvider.verify(configuration, addresses, samlResponse);
    } catch {
      throw refuse('invalid_response');
    }
    const outcome = this.transaction((): SamlOutcome | SamlRefusedError => {
      let checked;
      try {
        checked = checkSignedResponse(signed.responseXml, signed.assertionXml, { acsUrl: addresses.acs_url, idpEntityId: configuration.idpEntityId, now });
      } catch (error) {
        if (error instanceof SamlRefusedError) return error;
        throw error;
      }
      let test = false;
      let next = '/';
      if (checked.inResponseTo === null) {
        if (!configuration.allowIdpInitiated) return new SamlRefusedError('unsolicited_response');
      } else {
        const request = this.repository.takeRequest(checked.inResponseTo, organization.id, now.toISOString());
        if (request === undefined) return new SamlRefusedError('unknown_request');
        test = request.test === 1;
        next = request.next;
      }
      if (!this.repository.useAssertion(organization.id, checked.assertionId, checked.expiresAt.toISOString())) return new SamlRefusedError('replayed_assertion');
      const mapped = mapAttributes(configuration, signed.nameId, signed.attributes);
      if (mapped === undefined) return new SamlRefusedError('malformed_assertion');
      const existing = this.users.findForSignIn(mapped.email);
      if (test) {
        this.repository.markTested(organization.id, configuration.updatedAt, now.toISOString());
        this.audit.record({ origin, action: 'saml.tested', target: { type: 'organization', id: organization.id }, details: { email: mapped.email } }, now);
        return { kind: 'test', user: mapped, existing: existing?.org_id === organization.id };
      }
      // A request sent while SAML was enabled may come back after it was turned off.
      if (!configuration.enabled) return new SamlRefusedError('not_enabled');
      const signedIn = this.#signIn(organization, configuration, mapped, existing, client, now);
      return signedIn instanceof SamlRefusedError ? signedIn : { kind: 'sign_in', outcome: signedIn, next };
    });
    if (outcome instanceof SamlRefusedError) throw refuse(outcome.reason);
    return outcome;
  }

  #signIn(organization: Organization, configuration: SamlConfiguration, mapped: MappedUser, existing: User | undefined, client: SessionClient, now: Date): SignInOutcome | SamlRefusedError {
    let user = existing;
    if (user === undefined) {
      if (!configuration.jitProvisioning) return new SamlRefusedError('unknown_user');
      user = this.users.createUser({ orgId: organization.id, email: mapped.email, name: mapped.name, role: mapped.role }, now);
    }
    if (user.org_id !== organization.id || user.status !== 'active') return new SamlRefusedError('unknown_user');
    return this.sessions.signInThroughIdentityProvider(user, client, 'saml', configuration.ssoSatisfiesTwoFactor, now);
  }

  #configuration(organization: Organization): SamlConfiguration {
    const configuration = this.settings.configuration(organization.id);
    if (configuration === undefined) throw new NotFoundError('SAML is not configured');
    return configuration;
  }
}
