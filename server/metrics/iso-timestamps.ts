const dayMs = 86_400_000;
const twoDigits = Array.from({ length: 60 }, (_, value) => String(value).padStart(2, '0'));
const threeDigits = Array.from({ length: 1000 }, (_, value) => String(value).padStart(3, '0'));

/**
 * Times as Date#toISOString writes them, for a series of times: the date part is made once per
 * UTC day and the time of day from lookup tables, about a tenth of a Date and its toISOString each.
 */
export class IsoTimestamps {
  #day = Number.NaN;
  /** The day's text up to the time (`2026-11-24T`; `+010000-01-01T` past year 9999). */
  #dayText = '';

  of(ms: number): string {
    const day = Math.floor(ms / dayMs) * dayMs;
    if (day !== this.#day) {
      this.#day = day;
      // The time of day ('HH:MM:SS.mmmZ') is the last 13 characters whatever the year's width.
      this.#dayText = new Date(day).toISOString().slice(0, -13);
    }
    let rest = ms - day;
    const hours = Math.floor(rest / 3_600_000);
    rest -= hours * 3_600_000;
    const minutes = Math.floor(rest / 60_000);
    rest -= minutes * 60_000;
    const seconds = Math.floor(rest / 1000);
    return `${this.#dayText}${twoDigits[hours]}:${twoDigits[minutes]}:${twoDigits[seconds]}.${threeDigits[rest - seconds * 1000]}Z`;
  }
}
