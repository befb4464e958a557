import { escapeLabelValue } from '../../common/exporter-catalog.js';

const requestsName = 'dbmon_http_requests_total';
const durationName = 'dbmon_http_request_duration_seconds';
/** The duration histogram's upper bounds, in seconds. */
const durationBounds = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5];

interface RequestSeries {
  method: string;
  route: string;
  status: number;
  count: number;
}

interface DurationSeries {
  route: string;
  /** Observations per bound, not cumulative; the last is above every bound. */
  perBucket: number[];
  sum: number;
  count: number;
}

/**
 * The access log's two families, counted in plain maps and written at scrape time as prom-client's
 * registry writes a counter and a histogram. prom-client turned a request's labels into a string key
 * and looked it up, twice per request, which cost more than the rest of the access log.
 */
export class HttpRequestMetrics {
  /** By method, route and status; `#requests` keeps the same series in the order they first came. */
  readonly #requestsByKey = new Map<string, Map<string, Map<number, RequestSeries>>>();
  readonly #requests: RequestSeries[] = [];
  readonly #durations = new Map<string, DurationSeries>();

  observe(method: string, route: string, status: number, seconds: number): void {
    let byRoute = this.#requestsByKey.get(method);
    if (byRoute === undefined) this.#requestsByKey.set(method, (byRoute = new Map()));
    let byStatus = byRoute.get(route);
    if (byStatus === undefined) byRoute.set(route, (byStatus = new Map()));
    let requests = byStatus.get(status);
    if (requests === undefined) {
      requests = { method, route, status, count: 0 };
      byStatus.set(status, requests);
      this.#requests.push(requests);
    }
    requests.count++;

    let durations = this.#durations.get(route);
    if (durations === undefined) {
      durations = { route, perBucket: new Array<number>(durationBounds.length + 1).fill(0), sum: 0, count: 0 };
      this.#durations.set(route, durations);
    }
    let bucket = 0;
    while (bucket < durationBounds.length && seconds > durationBounds[bucket]!) bucket++;
    durations.perBucket[bucket]!++;
    durations.sum += seconds;
    durations.count++;
  }

  /** Both families in the text format, each ended by the blank line the registry puts between families. */
  text(): string {
    let text = `# HELP ${requestsName} HTTP requests served, by method, matched route and status.\n# TYPE ${requestsName} counter\n`;
    for (const { method, route, status, count } of this.#requests) {
      text += `${requestsName}{method="${escapeLabelValue(method)}",route="${escapeLabelValue(route)}",status="${status}"} ${count}\n`;
    }
    text += `\n# HELP ${durationName} HTTP request duration by matched route.\n# TYPE ${durationName} histogram\n`;
    for (const { route, perBucket, sum, count } of this.#durations.values()) {
      const routeLabel = `route="${escapeLabelValue(route)}"`;
      let cumulative = 0;
      durationBounds.forEach((bound, i) => {
        cumulative += perBucket[i]!;
        text += `${durationName}_bucket{le="${bound}",${routeLabel}} ${cumulative}\n`;
      });
      text += `${durationName}_bucket{le="+Inf",${routeLabel}} ${count}\n`;
      text += `${durationName}_sum{${routeLabel}} ${sum}\n${durationName}_count{${routeLabel}} ${count}\n`;
    }
    return `${text}\n`;
  }
}
