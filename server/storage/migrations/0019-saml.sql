-- SAML 2.0 single sign-on per organization (issue #18). One configuration per organization.
CREATE TABLE saml_configurations (
  org_id TEXT PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
  enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
  idp_sso_url TEXT NOT NULL,
  idp_entity_id TEXT NOT NULL,
  idp_certificate TEXT NOT NULL,
  -- JSON objects: {email, name, role} attribute names; {owner?, admin?, member?, viewer?} role values.
  attribute_mapping TEXT NOT NULL,
  role_values TEXT NOT NULL,
  default_role TEXT NOT NULL CHECK (default_role IN ('owner', 'admin', 'member', 'viewer')),
  jit_provisioning INTEGER NOT NULL CHECK (jit_provisioning IN (0, 1)),
  allow_idp_initiated INTEGER NOT NULL CHECK (allow_idp_initiated IN (0, 1)),
  sso_satisfies_two_factor INTEGER NOT NULL CHECK (sso_satisfies_two_factor IN (0, 1)),
  updated_at TEXT NOT NULL,
  -- When a test round trip last passed with the configuration as it is; null after every change.
  tested_at TEXT
);

-- AuthnRequests sent and not yet answered: a response names one of these (InResponseTo), once.
CREATE TABLE saml_requests (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  -- 1 for the settings' test round trip: its answer signs nobody in.
  test INTEGER NOT NULL CHECK (test IN (0, 1)),
  expires_at TEXT NOT NULL
);
CREATE INDEX saml_requests_expiry ON saml_requests (expires_at);

-- Assertions already used, kept until they expire, so a replayed one is refused.
CREATE TABLE saml_assertions (
  org_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  assertion_id TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  PRIMARY KEY (org_id, assertion_id)
);
CREATE INDEX saml_assertions_expiry ON saml_assertions (expires_at);
