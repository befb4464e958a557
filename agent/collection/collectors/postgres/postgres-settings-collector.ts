import type { Collector } from '../../collector.js';
import { refreshedEvery, settingsRefreshMs } from '../refreshed-every.js';
import { pgSettings, seriesKey } from '../../../../common/exporter-catalog.js';
import type { PostgresSource } from '../../../sources/postgres-source.js';
import { nullableNumberOf, textOf, type Row } from '../../../sources/row.js';

/**
 * The server settings the postgres mixin's alerts read, as postgres_exporter names them; one a
 * version lacks is absent. Read every few minutes, not every cycle.
 */
export const postgresSettingsCollector: Collector<PostgresSource> = refreshedEvery(settingsRefreshMs, {
  name: 'pg_settings',
  async collect(source, { signal }) {
    const rows = await source.query('SELECT name, setting FROM pg_settings WHERE name = ANY($1::text[])', [[...pgSettings]], signal);
    return { counters: settingCounters(rows) };
  },
});

/** pg_settings rows (every value as text) as the exporter's series. */
export function settingCounters(rows: readonly Row[]): Record<string, number> {
  const counters: Record<string, number> = {};
  for (const row of rows) {
    const value = nullableNumberOf(row.setting);
    if (value !== null) counters[seriesKey(`pg_settings_${textOf(row.name)}`)] = value;
  }
  return counters;
}
