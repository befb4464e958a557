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

export const phoneBody = z
  .strictObject({
    phone: z
      .string()
      .transform((typed) => typed.replace(/[\s().-]/g, ''))
      .pipe(z.string().regex(/^\+[1-9]\d{7,14}$/, 'must be an international number: + and country code, e.g. +14155550100'))
      .describe('The phone number in international form (E.164): `+`, country code and number; spaces, dots, hyphens and brackets are ignored'),
  })
  .meta({ id: 'SmsEnrollment' });

export const smsSent = z
  .object({
    phone_ending: z.string().describe('The last two digits of the number the code was sent to'),
    expires_at: z.iso.datetime().describe('When the code stops working (10 minutes after sending)'),
  })
  .meta({ id: 'SmsSent' });

export const smsConfirmation = z
  .object({
    recovery_codes: z
      .array(z.string())
      .describe('10 new recovery codes, shown this once, when SMS is the first second factor; empty when the user had one already (their codes stay)'),
  })
  .meta({ id: 'SmsConfirmation' });
