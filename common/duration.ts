const unitMs = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `<n>(s|m|h|d)` to milliseconds, or undefined when the text is not such a duration. */
export function parseDuration(text: string): number | undefined {
  const match = /^([1-9]\d{0,6})([smhd])$/.exec(text);
  if (match === null) return undefined;
  return Number(match[1]) * unitMs[match[2] as keyof typeof unitMs];
}
