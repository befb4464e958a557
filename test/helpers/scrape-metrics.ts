import { execFileSync } from 'node:child_process';
import type { TestServer } from './test-server.js';

/** The text of the server's `/metrics`, read with its scrape token; throws on any other answer than 200. */
export async function scrapeMetrics(server: Pick<TestServer, 'request'>, token: string): Promise<string> {
  const response = await server.request('GET', '/metrics', { headers: { authorization: `Bearer ${token}` } });
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
  return response.text;
}

/** The value of one series (name and labels exactly as written), undefined when absent. */
export function seriesValue(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** What `promtool check metrics` says of the text: empty when clean. */
export const promtoolProblems = (text: string): string => execFileSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' }).trim();
