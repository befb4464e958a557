import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A loopback server that speaks just enough of the PostgreSQL v3 protocol to take a password:
 * it declines TLS, reads the StartupMessage, asks for a clear-text password
 * (AuthenticationCleartextPassword, as a hostile or misconfigured server may), records any
 * PasswordMessage, then refuses the login (28P01) and hangs up.
 */
export interface FakePostgresServer {
  readonly port: number;
  /** Parameters of each StartupMessage received (user, database, application_name, ...). */
  readonly startups: Array<Record<string, string>>;
  /** The text of each PasswordMessage received. */
  readonly passwords: string[];
  close(): Promise<void>;
}

const sslRequestCode = 80877103;
const gssEncRequestCode = 80877104;
const protocolVersion3 = 196608;

export async function startFakePostgresServer(): Promise<FakePostgresServer> {
  const startups: Array<Record<string, string>> = [];
  const passwords: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffered = Buffer.alloc(0);
    let started = false;
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        const message = started ? takeTyped(buffered) : takeUntyped(buffered);
        if (message === undefined) return;
        buffered = buffered.subarray(message.length);
        if (!started) {
          const code = message.body.readInt32BE(0);
          if (code === sslRequestCode || code === gssEncRequestCode) {
            socket.write('N');
          } else if (code === protocolVersion3) {
            startups.push(parseStartup(message.body.subarray(4)));
            started = true;
            socket.write(authenticationCleartextPassword());
          } else {
            socket.destroy();
            return;
          }
        } else if (message.type === 'p') {
          passwords.push(message.body.subarray(0, Math.max(0, message.body.indexOf(0))).toString('utf8'));
          socket.end(errorResponse('28P01', 'password authentication failed'));
          return;
        } else {
          socket.destroy();
          return;
        }
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    startups,
    passwords,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A message without a type byte (the first one of a connection): Int32 length, then the body. */
function takeUntyped(buffer: Buffer): { length: number; body: Buffer; type?: undefined } | undefined {
  if (buffer.length < 4) return undefined;
  const length = buffer.readInt32BE(0);
  if (buffer.length < length) return undefined;
  return { length, body: buffer.subarray(4, length) };
}

/** A typed message: Byte1 type, Int32 length (itself included), then the body. */
function takeTyped(buffer: Buffer): { length: number; body: Buffer; type: string } | undefined {
  if (buffer.length < 5) return undefined;
  const length = buffer.readInt32BE(1) + 1;
  if (buffer.length < length) return undefined;
  return { length, type: String.fromCharCode(buffer[0]!), body: buffer.subarray(5, length) };
}

function parseStartup(body: Buffer): Record<string, string> {
  const fields = body.toString('utf8').split('\0');
  const parameters: Record<string, string> = {};
  for (let at = 0; at + 1 < fields.length && fields[at] !== ''; at += 2) parameters[fields[at]!] = fields[at + 1]!;
  return parameters;
}

function authenticationCleartextPassword(): Buffer {
  const message = Buffer.alloc(9);
  message.write('R', 0);
  message.writeInt32BE(8, 1);
  message.writeInt32BE(3, 5);
  return message;
}

function errorResponse(sqlState: string, text: string): Buffer {
  const fields = Buffer.from(`SFATAL\0VFATAL\0C${sqlState}\0M${text}\0\0`, 'utf8');
  const header = Buffer.alloc(5);
  header.write('E', 0);
  header.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([header, fields]);
}
