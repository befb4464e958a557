import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A loopback TCP forwarder with a fixed port in front of a server whose port may change (a
 * restarted test server). It can swallow the server's responses, so a client can be killed
 * after the server handled its request but before the client heard back.
 */
export interface TcpForwarder {
  readonly port: number;
  /** The port forwarded to. */
  target: number;
  /** While true, the server's answers to requests sent from then on never reach the client. */
  holdResponses: boolean;
  /** Stops listening and cuts every open connection: to the client, the server is down. */
  stop(): Promise<void>;
  start(): Promise<void>;
}

export async function startTcpForwarder(target: number): Promise<TcpForwarder> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const forwarder: TcpForwarder = {
    get port() {
      return port;
    },
    target,
    holdResponses: false,
    async start() {
      const next = createServer((client) => {
        const upstream = connect(forwarder.target, '127.0.0.1');
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', () => {
            client.destroy();
            upstream.destroy();
          });
        }
        // Only answers to requests sent while holding are held back: an answer already on its
        // way when holding started still arrives (HTTP/1.1 sends a request on a connection only
        // after the previous answer arrived in full).
        let holding = false;
        client.on('data', (chunk) => {
          holding = forwarder.holdResponses;
          upstream.write(chunk);
        });
        upstream.on('data', (chunk) => {
          if (!(holding && forwarder.holdResponses)) client.write(chunk);
        });
        client.on('end', () => upstream.end());
        upstream.on('end', () => client.end());
      });
      await new Promise<void>((resolve, reject) => {
        next.once('error', reject);
        next.listen(port, '127.0.0.1', () => resolve());
      });
      port = (next.address() as AddressInfo).port;
      server = next;
    },
    async stop() {
      const current = server;
      server = undefined;
      for (const socket of sockets) socket.destroy();
      if (current !== undefined) await new Promise<void>((resolve) => current.close(() => resolve()));
    },
  };
  await forwarder.start();
  return forwarder;
}
