import { generateSecret, generateURI, verifySync } from 'otplib';

/** RFC 6238 with the authenticator apps' defaults: SHA-1, 6 digits, 30 s steps. */
const periodSeconds = 30;
/** One step of drift either way: a phone clock off by up to 30 s still signs in, one off by 60 s does not. */
const driftSeconds = periodSeconds;

/** A fresh 160-bit secret, in the Base32 the apps read. */
export function newTotpSecret(): string {
  return generateSecret({ length: 20 });
}

/** The `otpauth://` URI an authenticator app reads from the QR code. */
export function totpUri(secret: string, account: string): string {
  return generateURI({ issuer: 'dbmon', label: account, secret });
}

/**
 * The time step the code belongs to when it is right now (within one step of drift) and of a step
 * after `afterTimeStep`; undefined otherwise. Remembering the step returned refuses the code, and
 * every earlier one, from then on.
 */
export function verifyTotp(secret: string, code: string, now: Date, afterTimeStep: number | null): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const result = verifySync({
    secret,
    token: code,
    epoch: Math.floor(now.getTime() / 1000),
    epochTolerance: driftSeconds,
    ...(afterTimeStep !== null && { afterTimeStep }),
  });
  return result.valid && 'timeStep' in result ? result.timeStep : undefined;
}
