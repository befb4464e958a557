import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { globalAgent, createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import t from 'tap';
import { RetryableError } from '../../../agent/delivery/delivery-errors.js';
import { HttpTransport } from '../../../agent/delivery/http-transport.js';
import { makeSnapshot } from '../../helpers/snapshot-factory.js';
import { tempDir } from '../../helpers/temp-dir.js';

// The agent's https:// path (node:https, loaded on demand) against a real TLS server: it speaks the
// protocol when the server's certificate is trusted, and refuses one that is not, before the key is sent.

const agentKey = 'dbm_sak_secretsecretsecretsecretsecret123456';
const batch = { batch_id: 'h'.repeat(32), samples: [{ database_id: 'db_a', snapshot: makeSnapshot(new Date(Date.UTC(2026, 10, 24, 8))) }] };

/** A self-signed certificate for 127.0.0.1 and its key, made by openssl in `dir`. */
function selfSigned(dir: string, name: string): { key: Buffer; cert: Buffer } {
  const [key, cert] = [join(dir, `${name}.key`), join(dir, `${name}.crt`)];
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1',
    '-subj', `/CN=${name}`, '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert,
  ], { stdio: 'ignore' });
  return { key: readFileSync(key), cert: readFileSync(cert) };
}

/** An https server that acknowledges every batch it is sent and keeps what it received. */
async function ackingServer(credentials: { key: Buffer; cert: Buffer }) {
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  const server: Server = createServer(credentials, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ headers: request.headers, body });
      const { batch_id } = JSON.parse(body) as { batch_id: string };
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ batch_id, stored: 1, duplicate: false, rejected: 0 }));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return { url: `https://127.0.0.1:${port}`, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

t.test('over https the agent posts to a server whose certificate it trusts, and refuses one it does not', async (t) => {
  const dir = tempDir(t);
  const trusted = selfSigned(dir, 'trusted');
  // What NODE_EXTRA_CA_CERTS does for an operator's private CA, for this process's https requests.
  globalAgent.options.ca = trusted.cert;
  t.teardown(() => {
    delete globalAgent.options.ca;
  });

  const good = await ackingServer(trusted);
  t.teardown(good.close);
  const transport = new HttpTransport({ serverUrl: good.url, agentKey, version: '1.2.3', hostname: 'host-1', timeoutMs: 5000 });
  t.same(await transport.sendBatch(batch), { batch_id: batch.batch_id, stored: 1, duplicate: false, rejected: 0 });
  t.equal(good.received.length, 1);
  t.equal(good.received[0]!.headers.authorization, `Bearer ${agentKey}`, 'the key went over TLS');
  t.equal(JSON.parse(good.received[0]!.body).batch_id, batch.batch_id);

  // An impostor on the same address with a certificate of its own (a man in the middle).
  const impostor = await ackingServer(selfSigned(dir, 'impostor'));
  t.teardown(impostor.close);
  const fooled = new HttpTransport({ serverUrl: impostor.url, agentKey, version: '1.2.3', hostname: 'host-1', timeoutMs: 5000 });
  const failure = await fooled.sendBatch(batch).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  t.type(failure, RetryableError, 'a refused certificate is retried later, not a rejected batch');
  t.match((failure as Error).message, "POST /v1/agent/samples: the server's TLS certificate was refused (DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate)");
  t.notMatch((failure as Error).message, agentKey, 'the key never appears in a message');
  t.equal(impostor.received.length, 0, 'the impostor never got the request, so never the key');
});
