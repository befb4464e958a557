/** A result row as the drivers give it: big integers and decimals may arrive as strings. */
export type Row = Record<string, unknown>;

export function numberOf(value: unknown): number {
  const number = nullableNumberOf(value);
  if (number === null) throw new TypeError(`expected a number, got ${String(value)}`);
  return number;
}

export function nullableNumberOf(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  const number = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(number) ? number : null;
}

export function textOf(value: unknown): string {
  if (value === null || value === undefined) return '';
  return Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
}
