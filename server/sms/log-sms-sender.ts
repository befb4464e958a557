import type { Logger } from '../../common/logger.js';
import type { SmsSender } from './sms-sender.js';

/**
 * Development only: the message goes to the log at warn instead of a phone, code included. The
 * configuration refuses it under NODE_ENV=production unless sms.allow_log_sender_in_production says so.
 */
export function logSmsSender(logger: Logger): SmsSender {
  return {
    send: (message) => {
      logger.warn({ to: message.to, text: message.body }, 'SMS written to the log (sms.sender log, development only)');
      return Promise.resolve();
    },
  };
}
