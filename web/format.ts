/** Numbers with their units, and times in the browser's time zone (UTC on hover). */

export type Unit = 'percent' | 'count' | 'per_second' | 'milliseconds';

export function formatValue(value: number, unit: Unit): string {
  switch (unit) {
    case 'percent':
      return `${value.toFixed(1)} %`;
    case 'count':
      return String(Math.round(value));
    case 'per_second':
      return `${value < 10 ? value.toFixed(2) : value.toFixed(1)}/s`;
    case 'milliseconds':
      return value < 1 ? `${(value * 1000).toFixed(0)} µs` : value < 1000 ? `${value.toFixed(value < 10 ? 2 : 1)} ms` : `${(value / 1000).toFixed(2)} s`;
  }
}

/** How long ago, in the largest whole unit: "12 s ago", "3 min ago", "2 h ago", "4 d ago". */
export function formatAge(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 120) return `${seconds} s ago`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 172_800) return `${Math.round(seconds / 3600)} h ago`;
  return `${Math.round(seconds / 86_400)} d ago`;
}

/** A `<time>` showing the local date and time, with the UTC time in its title. */
export function timeElement(at: Date): HTMLTimeElement {
  const element = document.createElement('time');
  element.dateTime = at.toISOString();
  element.textContent = at.toLocaleString();
  element.title = `${at.toISOString().replace('T', ' ').slice(0, 19)} UTC`;
  return element;
}

/** An element made in one call: tag, class, text. */
export function element<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const made = document.createElement(tag);
  if (className !== undefined) made.className = className;
  if (text !== undefined) made.textContent = text;
  return made;
}

/** Shows the server-rendered times under `root` (`<time class="local-time">`, written in UTC) in the browser's time zone. */
export function showLocalTimes(root: ParentNode): void {
  for (const time of root.querySelectorAll<HTMLTimeElement>('time.local-time')) time.textContent = new Date(time.dateTime).toLocaleString();
}
