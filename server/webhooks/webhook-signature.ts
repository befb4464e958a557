import { createHmac, randomBytes } from 'node:crypto';
import { z } from 'zod';

const secretPrefix = 'whsec_';

/** A Standard Webhooks secret: `whsec_` and the base64 of 24 random bytes. */
export function newWebhookSecret(): string {
  return `${secretPrefix}${randomBytes(24).toString('base64')}`;
}

/** The Standard Webhooks headers every delivery attempt carries. */
export const signedHeadersSchema = z.object({
  'webhook-id': z.string().describe('The event id (evt_...), the same on every retry: deduplicate on it'),
  'webhook-timestamp': z.string().regex(/^\d+$/).describe('Unix seconds of the attempt: refuse one too far from now'),
  'webhook-signature': z
    .string()
    .regex(/^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$/)
    .describe(
      'Space-separated `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">`, keyed with the base64-decoded part of the secret after whsec_',
    ),
});

/**
 * The Standard Webhooks headers of one attempt: the id stays the same on every retry, the
 * timestamp is the attempt's, the signature is `v1,` and the base64 HMAC-SHA256 of
 * `id.timestamp.body` keyed with the base64-decoded part of the secret after `whsec_`.
 */
export function signedHeaders(secret: string, id: string, timestampSeconds: number, body: string): z.output<typeof signedHeadersSchema> {
  const key = Buffer.from(secret.startsWith(secretPrefix) ? secret.slice(secretPrefix.length) : secret, 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': `v1,${signature}`,
  };
}
