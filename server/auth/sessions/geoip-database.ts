import { open, type CityResponse, type Reader } from 'maxmind';

/**
 * Opens `geoip.database` once at start (the whole file is read into memory; lookups are cached).
 * A file that is missing or no MaxMind DB rejects: the server does not start with a broken setting.
 */
export function openGeoipDatabase(path: string): Promise<Reader<CityResponse>> {
  return open<CityResponse>(path, { cache: { max: 10_000 } });
}
