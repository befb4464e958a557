import { createHmac, randomBytes } from 'node:crypto';

const secretPrefix = 'whsec_';

/** A Standard Webhooks secret: `whsec_` and the base64 of 24 random bytes. */
export function newWebhookSecret(): string {
  return `${secretPrefix}${randomBytes(24).toString('base64')}`;
}

/**
 * The Standard Webhooks headers of one attempt: the id stays the same on every retry, the
 * timestamp is the attempt's, the signature is `v1,` and the base64 HMAC-SHA256 of
 * `id.timestamp.body` keyed with the base64-decoded part of the secret after `whsec_`.
 */
export function signedHeaders(secret: string, id: string, timestampSeconds: number, body: string): Record<string, string> {
  const key = Buffer.from(secret.startsWith(secretPrefix) ? secret.slice(secretPrefix.length) : secret, 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': `v1,${signature}`,
  };
}
