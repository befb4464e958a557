import { z } from 'zod';
import { twoFactorMethods } from './two-factor-repository.js';

export const totpEnrollment = z
  .object({
    secret: z.string().describe('The Base32 secret, for typing into an authenticator app by hand'),
    otpauth_uri: z.string().describe('`otpauth://totp/...`: what the QR code holds'),
    qr_code: z.string().describe('The URI as a QR code: a `data:image/svg+xml;base64,...` URI'),
  })
  .meta({ id: 'TotpEnrollment' });

export const codeBody = z.strictObject({ code: z.string().trim().min(1).max(32).describe('The 6 digits the app shows now') }).meta({ id: 'TwoFactorCode' });

export const recoveryCodes = z
  .object({
    recovery_codes: z
      .array(z.string())
      .describe('10 codes, shown this once: each signs in once in place of the second factor; a new set voids the old one'),
  })
  .meta({ id: 'RecoveryCodes' });

export const reauthenticationBody = z
  .strictObject({ password: z.string().max(1024).optional().describe("The user's password, whatever the credential") })
  .meta({ id: 'Reauthentication' });

export const methodParams = z.strictObject({ method: z.enum(twoFactorMethods) });
