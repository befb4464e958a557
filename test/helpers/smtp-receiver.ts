import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  /** The envelope's recipients. */
  to: string[];
  /** Header names in lower case, values unfolded. */
  headers: Record<string, string>;
  subject: string;
  /** The plain-text body, transfer encoding undone. */
  text: string;
  /** The message as it came over the wire. */
  raw: string;
}

export interface SmtpReceiver {
  /** `smtp://user:password@127.0.0.1:port` (without credentials when the receiver takes none). */
  url: string;
  received: ReceivedMail[];
  close(): Promise<void>;
}

/**
 * A real SMTP server on 127.0.0.1 that records every message. With `user` and `password` it requires
 * that login (anything else is refused with 535); `greetingDelayMs` holds each connection that long
 * before greeting, as a slow mail server would.
 */
export async function startSmtpReceiver(options: { user?: string; password?: string; greetingDelayMs?: number } = {}): Promise<SmtpReceiver> {
  const received: ReceivedMail[] = [];
  const requireLogin = options.user !== undefined;
  const server = new SMTPServer({
    authOptional: !requireLogin,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onConnect: (_session, callback) => {
      void sleep(options.greetingDelayMs ?? 0).then(() => callback());
    },
    onAuth: (auth, _session, callback) => {
      if (auth.username === options.user && auth.password === options.password) callback(null, { user: auth.username });
      else callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push(parseMail(Buffer.concat(chunks).toString('utf8'), session.envelope.rcptTo.map((rcpt) => rcpt.address)));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  const credentials = requireLogin ? `${encodeURIComponent(options.user!)}:${encodeURIComponent(options.password ?? '')}@` : '';
  return {
    url: `smtp://${credentials}127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function parseMail(raw: string, to: string[]): ReceivedMail {
  const split = raw.indexOf('\r\n\r\n');
  const headers: Record<string, string> = {};
  for (const line of raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  const body = raw.slice(split + 4);
  const encoding = headers['content-transfer-encoding']?.toLowerCase();
  const text =
    encoding === 'quoted-printable'
      ? Buffer.from(body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8')
      : encoding === 'base64'
        ? Buffer.from(body, 'base64').toString('utf8')
        : body;
  return { to, headers, subject: headers.subject ?? '', text, raw };
}
