import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SmsSettings } from '../../server/sms/create-sms-sender.js';

export interface TwilioMessage {
  to: string;
  from: string;
  body: string;
}

/** A refusal as Twilio words it: its error code, message and HTTP status. */
export interface TwilioRefusal {
  status: number;
  code: number;
  message: string;
}

/** A local stand-in for Twilio's Messages API that checks each request as Twilio would. */
export interface FakeTwilio {
  /** The base URL (sms.twilio.base_url). */
  url: string;
  accountSid: string;
  authToken: string;
  /** The account's one sending number. */
  from: string;
  /** Messages accepted, in order. */
  messages: TwilioMessage[];
  /** Requests refused, in order. */
  refusals: TwilioRefusal[];
  /** When set, every request is answered with this refusal (an outage, a suspended account). */
  outage: TwilioRefusal | undefined;
  /** sms.* for a server that sends through this fake. */
  settings(): SmsSettings;
  /** The 6-digit code of the newest message to `to`. */
  lastCode(to: string): string;
  close(): Promise<void>;
}

const maxBodyCharacters = 1600;

/**
 * `POST /2010-04-01/Accounts/{AccountSid}/Messages.json` with HTTP Basic (account SID and auth
 * token), form-encoded `To`, `From` and `Body`: a wrong path, credential, content type or field
 * gets Twilio's own error code and status; a right request is 201 with a queued message resource.
 */
export async function startFakeTwilio(): Promise<FakeTwilio> {
  const twilio: FakeTwilio = {
    url: '',
    accountSid: `AC${randomBytes(16).toString('hex')}`,
    authToken: randomBytes(16).toString('hex'),
    from: '+15005550006',
    messages: [],
    refusals: [],
    outage: undefined,
    settings: () => ({ sender: 'twilio', twilio: { accountSid: twilio.accountSid, authToken: twilio.authToken, from: twilio.from, baseUrl: twilio.url } }),
    lastCode: (to) => {
      const message = twilio.messages.filter((entry) => entry.to === to).at(-1);
      const code = message?.body.match(/\b\d{6}\b/)?.[0];
      if (code === undefined) throw new Error(`no code was sent to ${to}`);
      return code;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const check = (method: string | undefined, path: string, authorization: string | undefined, contentType: string | undefined, form: URLSearchParams): TwilioRefusal | TwilioMessage => {
    if (twilio.outage !== undefined) return twilio.outage;
    const resource = path.match(/^\/2010-04-01\/Accounts\/([^/]+)\/Messages\.json$/);
    if (method !== 'POST' || resource === null) return { status: 404, code: 20404, message: 'The requested resource was not found' };
    const expected = `Basic ${Buffer.from(`${twilio.accountSid}:${twilio.authToken}`).toString('base64')}`;
    if (authorization !== expected || decodeURIComponent(resource[1]!) !== twilio.accountSid) return { status: 401, code: 20003, message: 'Authenticate' };
    if (!contentType?.startsWith('application/x-www-form-urlencoded')) return { status: 400, code: 21604, message: "A 'To' phone number is required." };
    const [to, from, body] = [form.get('To'), form.get('From'), form.get('Body')];
    if (!to) return { status: 400, code: 21604, message: "A 'To' phone number is required." };
    if (!/^\+[1-9]\d{7,14}$/.test(to)) return { status: 400, code: 21211, message: `Invalid 'To' Phone Number: ${to}` };
    if (!from) return { status: 400, code: 21603, message: "A 'From' phone number is required." };
    if (from !== twilio.from) return { status: 400, code: 21606, message: `The From phone number ${from} is not a valid, SMS-capable inbound phone number or short code for your account.` };
    if (!body) return { status: 400, code: 21602, message: 'Message body is required.' };
    if ([...body].length > maxBodyCharacters) return { status: 400, code: 21617, message: 'The concatenated message body exceeds the 1600 character limit.' };
    return { to, from, body };
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const outcome = check(request.method, request.url ?? '', request.headers.authorization, request.headers['content-type'], new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      response.setHeader('content-type', 'application/json');
      if ('code' in outcome) {
        twilio.refusals.push(outcome);
        response.writeHead(outcome.status).end(JSON.stringify({ code: outcome.code, message: outcome.message, more_info: `https://www.twilio.com/docs/errors/${outcome.code}`, status: outcome.status }));
        return;
      }
      twilio.messages.push(outcome);
      const sid = `SM${randomBytes(16).toString('hex')}`;
      response.writeHead(201).end(JSON.stringify({ sid, account_sid: twilio.accountSid, ...outcome, status: 'queued', direction: 'outbound-api', api_version: '2010-04-01', num_segments: '1', date_created: new Date().toUTCString() }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  twilio.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return twilio;
}
