import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors.js';
import type { webhooks } from './generated/openapi.js';

/**
 * A delivery's payload, one member per event type of the document's `webhooks` (`webhook.test`,
 * sent by POST /v1/webhooks/{id}/test, included): narrow it on `type`; `data.object` is the
 * resource the event is about.
 */
export type WebhookEvent = { [Type in keyof webhooks]: webhooks[Type]['post']['requestBody']['content']['application/json'] }[keyof webhooks];

export type WebhookEventType = WebhookEvent['type'];

/** The payload of one event type, e.g. `WebhookEventOf<'alert.triggered'>`. */
export type WebhookEventOf<Type extends WebhookEventType> = Extract<WebhookEvent, { type: Type }>;

export interface VerifyWebhookOptions {
  /** How far (seconds) the delivery's timestamp may be from now, either way (default 300). */
  toleranceSeconds?: number;
  /** Now, in milliseconds since the epoch (default Date.now()). */
  nowMs?: number;
}

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

/**
 * Checks a delivery's Standard Webhooks signature (`webhook-signature`: space-separated
 * `v1,<base64 HMAC-SHA256 of "id.timestamp.payload">`, keyed with the base64 after the secret's
 * `whsec_`) and that its `webhook-timestamp` is within the tolerance of now, then returns the
 * event. `payload` must be the body exactly as received. Throws WebhookVerificationError.
 */
export function verifyWebhook(payload: string | Uint8Array, headers: HeaderSource, secret: string, options: VerifyWebhookOptions = {}): WebhookEvent {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (id === undefined || timestamp === undefined || signatures === undefined) throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature header');
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not a number of seconds');
  const ageSeconds = (options.nowMs ?? Date.now()) / 1000 - Number(timestamp);
  if (Math.abs(ageSeconds) > (options.toleranceSeconds ?? 300)) throw new WebhookVerificationError('webhook-timestamp is outside the tolerance (too old or too new)');
  const body = typeof payload === 'string' ? payload : Buffer.from(payload).toString('utf8');
  const expected = createHmac('sha256', secretKey(secret)).update(`${id}.${timestamp}.${body}`).digest();
  if (!signatures.split(' ').some((signature) => matches(signature, expected))) throw new WebhookVerificationError('no webhook-signature matches');
  try {
    return JSON.parse(body) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('the payload is not JSON');
  }
}

function secretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

function matches(signature: string, expected: Buffer): boolean {
  const [scheme, value] = signature.split(',', 2);
  if (scheme !== 'v1' || value === undefined) return false;
  const candidate = Buffer.from(value, 'base64');
  return candidate.length === expected.length && timingSafeEqual(candidate, expected);
}

function header(headers: HeaderSource, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = Object.entries(headers).find(([key, value]) => key.toLowerCase() === name && value !== undefined)?.[1];
  return Array.isArray(value) ? value[0] : value;
}
