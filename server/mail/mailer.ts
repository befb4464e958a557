/** A plain-text message to one recipient. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Outgoing mail (`email.smtp_url`). Neither method throws: a message that cannot be sent is logged, never with the server's credentials. */
export interface Mailer {
  /** Sends now; false when the message could not be handed to the mail server. */
  send(message: MailMessage): Promise<boolean>;
  /**
   * Composes and sends after the caller has answered, so nothing of the work (the writes composing
   * does, the mail server's time) shows in the answer or its timing. `compose` may throw; that is logged too.
   */
  sendLater(compose: () => MailMessage): void;
}
