import { textOf } from '../../../sources/row.js';

const numeric = /^-?\d+(\.\d+)?$/;
const switches: Readonly<Record<string, number>> = { on: 1, yes: 1, off: 0, no: 0 };

/**
 * A value of SHOW GLOBAL STATUS or SHOW GLOBAL VARIABLES as mysqld_exporter reads it: a number,
 * or a switch (ON and YES as 1, OFF and NO as 0); null for text, which is no series.
 */
export function mysqlValue(value: unknown): number | null {
  const text = textOf(value);
  if (numeric.test(text)) return Number(text);
  return switches[text.toLowerCase()] ?? null;
}
