import { randomUUID } from 'node:crypto';
import { DestinationGuard } from '../webhooks/destination-guard.js';
import { signedHeaders } from '../webhooks/webhook-signature.js';
import { sendWebhook } from '../webhooks/webhook-sender.js';
import { SmsNotSentError, type SmsSender } from './sms-sender.js';

export interface WebhookSmsSettings {
  /** The operator's endpoint; it may be on a private network (the operator chose it, no user can). */
  url: string;
  /** `whsec_...`: the body is signed the Standard Webhooks way, as the server's webhooks are. */
  secret: string;
}

const timeoutMs = 10_000;

/** POSTs `{"type": "sms.send", "to", "body"}`, signed, to the operator's URL; any 2xx answer means it was taken. */
export function webhookSmsSender(settings: WebhookSmsSettings, nowMs: () => number = Date.now): SmsSender {
  const guard = new DestinationGuard(true);
  return {
    send: async (message) => {
      const body = JSON.stringify({ type: 'sms.send', to: message.to, body: message.body });
      const headers = signedHeaders(settings.secret, `sms_${randomUUID()}`, Math.floor(nowMs() / 1000), body);
      const outcome = await sendWebhook({ url: settings.url, headers, body }, guard, timeoutMs, nowMs);
      if (outcome.error !== null) throw new SmsNotSentError(`webhook ${outcome.error}`);
    },
  };
}
