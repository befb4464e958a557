import type { Logger } from '../../common/logger.js';
import { logSmsSender } from './log-sms-sender.js';
import type { SmsSender } from './sms-sender.js';
import { twilioSmsSender, type TwilioSettings } from './twilio-sms-sender.js';
import { webhookSmsSender, type WebhookSmsSettings } from './webhook-sms-sender.js';

/** `sms.*` once validated: the sender and what it needs. */
export type SmsSettings = { sender: 'log' } | { sender: 'webhook'; webhook: WebhookSmsSettings } | { sender: 'twilio'; twilio: TwilioSettings };

/** The configured sender; a message it cannot send is logged with the reason and the number's last two digits (never a credential, the whole number nor the text, which holds a code). */
export function createSmsSender(settings: SmsSettings, logger: Logger): SmsSender {
  const sender = senderOf(settings, logger);
  return {
    send: (message) =>
      sender.send(message).catch((error: unknown) => {
        logger.warn({ sender: settings.sender, to_ending: message.to.slice(-2), reason: (error as Error).message }, 'SMS not sent');
        throw error;
      }),
  };
}

function senderOf(settings: SmsSettings, logger: Logger): SmsSender {
  switch (settings.sender) {
    case 'log':
      return logSmsSender(logger);
    case 'webhook':
      return webhookSmsSender(settings.webhook);
    case 'twilio':
      return twilioSmsSender(settings.twilio);
  }
}
