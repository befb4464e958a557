import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests inspect arbitrary JSON
  json: any;
  /** What the receiver answered. */
  status: number;
}

export interface ReceiverAnswer {
  status: number;
  headers?: Record<string, string>;
}

/** A real HTTP endpoint on 127.0.0.1 that records every request and answers as `answer` says. */
export interface WebhookReceiver {
  url: string;
  port: number;
  received: ReceivedWebhook[];
  answer: (request: { headers: IncomingHttpHeaders; body: string }, index: number) => ReceiverAnswer;
  /** The events of one type, in arrival order. */
  ofType(type: string): ReceivedWebhook[];
  close(): Promise<void>;
}

export async function startWebhookReceiver(answer: WebhookReceiver['answer'] = () => ({ status: 200 }), port = 0): Promise<WebhookReceiver> {
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const reply = receiver.answer({ headers: request.headers, body }, receiver.received.length);
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      receiver.received.push({ headers: request.headers, body, json, status: reply.status });
      response.writeHead(reply.status, reply.headers ?? {});
      response.end('ok');
    });
  });
  const receiver: WebhookReceiver = {
    url: '',
    port: 0,
    received: [],
    answer,
    ofType: (type) => receiver.received.filter((entry) => entry.json?.type === type),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}/hooks`;
  return receiver;
}
