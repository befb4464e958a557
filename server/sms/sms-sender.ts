/** One text message to one phone number (E.164). */
export interface SmsMessage {
  to: string;
  body: string;
}

/** Sends text messages (`sms.sender`): `log`, `webhook` or `twilio`. */
export interface SmsSender {
  /** Resolves once the provider took the message; rejects with SmsNotSentError otherwise. */
  send(message: SmsMessage): Promise<void>;
}

/** The provider did not take the message; the reason names no credential. */
export class SmsNotSentError extends Error {
  constructor(reason: string) {
    super(`SMS not sent: ${reason}`);
    this.name = 'SmsNotSentError';
  }
}
