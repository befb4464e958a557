-- Where a SAML sign-in goes once signed in: a path of ours, kept with the request it answers
-- (RelayState is limited to 80 bytes and comes back through the identity provider).
ALTER TABLE saml_requests ADD COLUMN next TEXT NOT NULL DEFAULT '/';
