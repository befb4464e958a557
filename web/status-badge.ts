import type { DatabaseStatus } from './api-types.js';
import { element } from './format.js';

const words: Record<DatabaseStatus, string> = {
  pending: 'no data yet',
  healthy: 'healthy',
  warning: 'warning',
  critical: 'critical',
  unreachable: 'unreachable',
  paused: 'paused',
};

/** A database's status as a word beside a coloured mark: the colour is never the only sign. */
export function statusBadge(status: DatabaseStatus): HTMLElement {
  const badge = element('span', `status status-${status}`);
  badge.append(element('span', 'status-mark'), words[status]);
  return badge;
}
