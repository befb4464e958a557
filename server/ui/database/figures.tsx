/** Numbers with their units and times (UTC, made local by the page's script), for the database page's server-rendered sections. */

export function milliseconds(value: number | null): string {
  if (value === null) return 'not reported';
  if (value < 1) return `${Math.round(value * 1000)} µs`;
  if (value < 1000) return `${value.toFixed(value < 10 ? 2 : 1)} ms`;
  return `${(value / 1000).toFixed(2)} s`;
}

export const count = (value: number): string => value.toLocaleString('en-US');

/** A time written in UTC; web/database-sections.ts shows it in the browser's time zone and keeps UTC on hover. */
export function Time({ at }: { at: string | Date }) {
  const iso = new Date(at).toISOString();
  const utc = `${iso.replace('T', ' ').slice(0, 19)} UTC`;
  return (
    <time class="local-time" dateTime={iso} title={utc}>
      {utc}
    </time>
  );
}
