import { SmsNotSentError, type SmsSender } from './sms-sender.js';

export interface TwilioSettings {
  accountSid: string;
  authToken: string;
  /** The sending number (E.164) or alphanumeric sender id. */
  from: string;
  /** `https://api.twilio.com`, or a compatible service (a local fake in tests). */
  baseUrl: string;
}

const timeoutMs = 10_000;

/**
 * Twilio's Messages API: `POST {base}/2010-04-01/Accounts/{AccountSid}/Messages.json`, form fields
 * To, From and Body, HTTP Basic with the account SID and auth token. A refusal names Twilio's error
 * code and message, never the credentials.
 */
export function twilioSmsSender(settings: TwilioSettings): SmsSender {
  const url = new URL(`/2010-04-01/Accounts/${encodeURIComponent(settings.accountSid)}/Messages.json`, settings.baseUrl);
  const authorization = `Basic ${Buffer.from(`${settings.accountSid}:${settings.authToken}`).toString('base64')}`;
  return {
    send: async (message) => {
      let response: Response;
      try {
        response = await fetch(url, {
          method: 'POST',
          headers: { authorization, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
          body: new URLSearchParams({ To: message.to, From: settings.from, Body: message.body }),
          redirect: 'error',
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        throw new SmsNotSentError(`Twilio unreachable (${(error as Error).message})`);
      }
      if (response.ok) {
        await response.body?.cancel();
        return;
      }
      const answer = (await response.json().catch(() => ({}))) as { code?: unknown; message?: unknown };
      throw new SmsNotSentError(`Twilio answered HTTP ${response.status}${answer.code === undefined ? '' : ` code ${String(answer.code)}`}${typeof answer.message === 'string' ? `: ${answer.message}` : ''}`);
    },
  };
}
