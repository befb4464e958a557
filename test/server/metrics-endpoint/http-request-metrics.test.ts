import { Counter, Histogram, Registry } from 'prom-client';
import t from 'tap';
import { HttpRequestMetrics } from '../../../server/metrics-endpoint/http-request-metrics.js';

/** The two families as prom-client wrote them before: the text HttpRequestMetrics must reproduce. */
function promClientFamilies() {
  const registry = new Registry();
  const requests = new Counter({
    name: 'dbmon_http_requests_total',
    help: 'HTTP requests served, by method, matched route and status.',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'dbmon_http_request_duration_seconds',
    help: 'HTTP request duration by matched route.',
    labelNames: ['route'],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
    registers: [registry],
  });
  return {
    observe(method: string, route: string, status: number, seconds: number) {
      requests.inc({ method, route, status: String(status) });
      duration.observe({ route }, seconds);
    },
    text: () => registry.metrics(),
  };
}

t.test('writes what prom-client wrote for the same requests, byte for byte', async (t) => {
  const ours = new HttpRequestMetrics();
  const theirs = promClientFamilies();
  // The registry ends its text with one newline; ours is followed by the registry's next family, after a blank line.
  t.equal(ours.text(), (await theirs.text()) + '\n', 'no request yet: both families, no series');

  const requests: [string, string, number, number][] = [
    ['GET', '/v1/databases', 200, 0.0004],
    ['GET', '/v1/databases', 200, 0.001], // on a bound: counted in it
    ['POST', '/v1/databases', 201, 0.0031],
    ['GET', 'unmatched', 404, 0.02],
    ['GET', '/v1/databases', 401, 0.7],
    ['GET', '/healthz', 200, 7.5], // above every bound: +Inf only
    ['GET', '/v1/databases/{id}', 200, 0.05],
    ['GET', 'a "quoted" \\ route\n', 500, 0.2],
    ['POST', '/v1/databases', 201, 0.0029],
    ['GET', '/v1/databases', 200, 0.00021],
  ];
  for (const request of requests) {
    ours.observe(...request);
    theirs.observe(...request);
  }
  t.equal(ours.text(), (await theirs.text()) + '\n');
});
