import { isLoopbackHost } from '../../common/is-loopback-host.js';
import type { Logger } from '../../common/logger.js';
import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type { Mailer, MailMessage } from './mailer.js';

export interface SmtpSettings {
  /** `smtp://` (STARTTLS) or `smtps://` (TLS), with the login as user and password when the server needs one. */
  smtpUrl: string;
  /** The sender: `dbmon@example.com` or `dbmon <dbmon@example.com>`. */
  from: string;
}

/**
 * nodemailer's SMTP options for `email.smtp_url`. Links in our mail are credentials, so beyond
 * loopback STARTTLS is required: a server that does not offer it gets nothing, not even the login.
 */
export function smtpTransportOptions(smtpUrl: string): SMTPTransport.Options {
  const url = new URL(smtpUrl);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const secure = url.protocol === 'smtps:';
  return {
    host,
    port: url.port === '' ? (secure ? 465 : 587) : Number(url.port),
    secure,
    requireTLS: !secure && !isLoopbackHost(host),
    ...(url.username !== '' && { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } }),
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  };
}

/** Sends through one SMTP server with nodemailer; failures are logged with the error's code and the server's reply, never the login. */
export function createSmtpMailer(settings: SmtpSettings, logger: Logger): Mailer {
  const options = smtpTransportOptions(settings.smtpUrl);
  const transport = nodemailer.createTransport({ ...options, logger: false, debug: false });
  const server = { host: options.host, port: options.port };
  const failed = (error: unknown, to: string | undefined) => {
    const { code, responseCode, message } = error as { code?: string; responseCode?: number; message?: string };
    logger.warn({ ...server, to, code, responseCode, reason: message }, 'mail not sent');
  };
  const send = async (message: MailMessage): Promise<boolean> => {
    try {
      await transport.sendMail({ from: settings.from, ...message });
      return true;
    } catch (error) {
      failed(error, message.to);
      return false;
    }
  };
  return {
    send,
    sendLater: (compose) => {
      setImmediate(() => {
        let message: MailMessage;
        try {
          message = compose();
        } catch (error) {
          failed(error, undefined);
          return;
        }
        void send(message);
      });
    },
  };
}
