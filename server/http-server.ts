import { createServer, type Server } from 'node:http';
import type Koa from 'koa';
import type { Logger } from 'pino';
import { clientErrorListener } from './http/client-error.js';

export function listen(app: Koa, host: string, port: number, logger: Logger): Promise<Server> {
  const server = createServer(app.callback());
  server.on('clientError', clientErrorListener(logger));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/** Stops accepting, lets in-flight requests finish, and cuts what is still open after `timeoutMs`. */
export function closeGracefully(server: Server, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), timeoutMs);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}
