-- The SMS factor's phone numbers are kept sealed at rest, as TOTP secrets are (AES-256-GCM with the
-- server's secret key, bound to their user). SQL cannot seal: the column is renamed here, and the
-- server seals any number still in the clear when it starts (TwoFactorRepository.sealPlainPhones),
-- overwriting the freed bytes (secure_delete) so no copy stays in the file.
ALTER TABLE two_factor_methods RENAME COLUMN phone TO sealed_phone;
